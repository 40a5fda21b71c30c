import { chooseHosts, type ConnectedHost, type HostSet } from '../config/connect-hosts.ts'
import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import { checkPrinter, countByStatus, formatCounts } from './check-result.ts'
import { createCheckContext, credentialsFromEnv, type CheckCredentials } from './check-context.ts'
import { validateConfig } from './validate-config.ts'
import { reportResults, validateEntries } from './validate-entries.ts'
import { hostLock, readConfigLock, writeConfigLock, type ConfigLock } from '../lock/config-lock.ts'
import { entryHash, entryKey } from '../lock/entry-hash.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import { hasCredentials } from '../hosts/contract.ts'
import { shortSecretResult } from './webhook-secret-check.ts'

export interface ValidateOptions {
  target: { owner: string; repo: string } | undefined
  force: boolean
  /** One host's id (`--provider`); undefined: every configured host. */
  provider?: string | undefined
}

/**
 * `prherald-config validate [owner/repo] [--force] [--provider id]`. Without a repository: the entries that are
 * new or changed since config.lock (every entry with --force), as the server does at start-up. With one: that
 * repository, always checked live. Each check's line is printed as soon as it completes (they run
 * concurrently, so in the order Slack and the git host answer); the summary comes last. Each host is a
 * section of its own, headed by its name when there are several. Writes config.lock when nothing FAILs.
 * Returns whether it passed.
 */
export async function validateCommand(
  settings: Settings, hosts: HostSet, env: Env, options: ValidateOptions, print: (line: string) => void,
): Promise<boolean> {
  const credentials = credentialsFromEnv(env)
  const chosen = chooseHosts(hosts, options.provider)
  const { lock, problem } = readConfigLock(settings.lockFile, settings.hosts.map((h) => h.id))
  if (problem) print(`note: ${problem}`)
  let ok = true
  for (const own of chosen) {
    const out = chosen.length > 1 ? (line: string) => print(`  ${line}`) : print
    if (chosen.length > 1) print(`${own.host.words.name} (hosts.${own.id}):`)
    const next = await validateHost(settings, own, credentials, hostLock(lock, own.id), options, out)
    ok &&= next !== undefined
    if (next) lock.hosts[own.id] = next.lock
    if (next?.changed) writeConfigLock(settings.lockFile, lock)
  }
  return ok
}

/** One host's part: its lock's new state when it passed, undefined when something FAILed. */
async function validateHost(
  settings: Settings, own: ConnectedHost, credentials: CheckCredentials, lock: ConfigLock, options: ValidateOptions, print: (line: string) => void,
): Promise<{ lock: ConfigLock; changed: boolean } | undefined> {
  const ctx = createCheckContext(settings, own, credentials)
  const gitTokenSet = hasCredentials(own.gitAccess)
  const secretVariable = own.host.variables.secret
  const shortSecret = shortSecretResult(secretVariable, own.webhookSecret)
  if (shortSecret) checkPrinter(print, [secretVariable])(shortSecret)

  if (options.target) {
    const { owner, repo } = options.target
    const report = await validateEntries(ctx, [options.target], checkPrinter(print, ['SLACK_BOT_TOKEN', `${owner}/${repo}`]))
    const results = reportResults(report)
    const ok = countByStatus(results).FAIL === 0
    // Only a configured entry has a lock record; a repository reached through "*" is part of the owner's entry.
    const route = listRoutes(own.mappings).find((r) => entryKey(r).toLowerCase() === `${owner}/${repo}`.toLowerCase())
    if (ok && route) {
      const configured = new Set(listRoutes(own.mappings).map(entryKey))
      for (const key of Object.keys(lock.entries)) if (!configured.has(key)) delete lock.entries[key]
      lock.entries[entryKey(route)] = { hash: entryHash(own.id, route, gitTokenSet), validated_at: new Date().toISOString() }
    }
    print(`${owner}/${repo}: ${formatCounts(results)}; ${ok && route ? `config.lock updated (${settings.lockFile})` : ok ? 'not a mapping entry of its own, config.lock unchanged' : 'config.lock not updated'}`)
    return ok ? { lock, changed: route !== undefined } : undefined
  }

  const printResult = checkPrinter(print, ['SLACK_BOT_TOKEN', ...listRoutes(own.mappings).map(entryKey)])
  const outcome = await validateConfig(ctx, lock, { gitTokenSet, force: options.force, onResult: printResult })
  const results = reportResults(outcome.report)
  for (const { route, locked } of outcome.plan.current) {
    printResult({ name: 'lock', target: entryKey(route), status: 'OK', reason: `unchanged since validated at ${locked.validated_at}; not re-checked (--force re-checks)` })
  }
  const total = outcome.plan.stale.length + outcome.plan.current.length
  if (!outcome.ok) {
    print(`${outcome.plan.stale.length} of ${total} entries checked: ${formatCounts(results)}; config.lock not updated`)
    return undefined
  }
  print(`${outcome.plan.stale.length} of ${total} entries checked: ${formatCounts(results)}; config.lock ${outcome.lockChanged ? 'written' : 'unchanged'} (${settings.lockFile})`)
  return { lock: outcome.nextLock, changed: outcome.lockChanged }
}
