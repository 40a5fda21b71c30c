import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import { checkPrinter, countByStatus, formatCounts, type CheckResult } from './check-result.ts'
import { createCheckContext, credentialsFromEnv } from './check-context.ts'
import { validateConfig } from './validate-config.ts'
import { reportResults, validateEntries } from './validate-entries.ts'
import { readConfigLock, writeConfigLock } from '../lock/config-lock.ts'
import { entryHash, entryKey } from '../lock/entry-hash.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import { hasCredentials } from '../hosts/contract.ts'
import { hostOf } from '../hosts/registry.ts'
import { shortSecretResult } from './webhook-secret-check.ts'

export interface ValidateOptions {
  target: { owner: string; repo: string } | undefined
  force: boolean
}

function summary(results: readonly CheckResult[]): string {
  return formatCounts(results)
}

/**
 * `prherald-config validate [owner/repo] [--force]`. Without a repository: the entries that are new or
 * changed since config.lock (every entry with --force), as the server does at start-up. With one: that
 * repository, always checked live. Each check's line is printed as soon as it completes (they run
 * concurrently, so in the order Slack and the git host answer); the summary comes last. Writes config.lock
 * when nothing FAILs. Returns whether it passed.
 */
export async function validateCommand(settings: Settings, env: Env, options: ValidateOptions, print: (line: string) => void): Promise<boolean> {
  const credentials = credentialsFromEnv(env, settings.gitProvider)
  const ctx = createCheckContext(settings, credentials)
  const gitTokenSet = hasCredentials(credentials.git)
  const { lock, problem } = readConfigLock(settings.lockFile)
  if (problem) print(`note: ${problem}`)
  const secretVariable = hostOf(settings.gitProvider).variables.secret
  const shortSecret = shortSecretResult(secretVariable, env[secretVariable])
  if (shortSecret) checkPrinter(print, [secretVariable])(shortSecret)

  if (options.target) {
    const { owner, repo } = options.target
    const report = await validateEntries(ctx, [options.target], checkPrinter(print, ['SLACK_BOT_TOKEN', `${owner}/${repo}`]))
    const results = reportResults(report)
    const ok = countByStatus(results).FAIL === 0
    // Only a configured entry has a lock record; a repository reached through "*" is part of the owner's entry.
    const route = listRoutes(settings.mappings).find((r) => entryKey(r).toLowerCase() === `${owner}/${repo}`.toLowerCase())
    if (ok && route) {
      const configured = new Set(listRoutes(settings.mappings).map(entryKey))
      for (const key of Object.keys(lock.entries)) if (!configured.has(key)) delete lock.entries[key]
      lock.entries[entryKey(route)] = { hash: entryHash(settings.gitProvider, route, gitTokenSet), validated_at: new Date().toISOString() }
      writeConfigLock(settings.lockFile, lock)
    }
    print(`${owner}/${repo}: ${summary(results)}; ${ok && route ? `config.lock updated (${settings.lockFile})` : ok ? 'not a mapping entry of its own, config.lock unchanged' : 'config.lock not updated'}`)
    return ok
  }

  const printResult = checkPrinter(print, ['SLACK_BOT_TOKEN', ...listRoutes(settings.mappings).map(entryKey)])
  const outcome = await validateConfig(ctx, lock, { gitTokenSet, force: options.force, onResult: printResult })
  const results = reportResults(outcome.report)
  for (const { route, locked } of outcome.plan.current) {
    printResult({ name: 'lock', target: entryKey(route), status: 'OK', reason: `unchanged since validated at ${locked.validated_at}; not re-checked (--force re-checks)` })
  }
  const total = outcome.plan.stale.length + outcome.plan.current.length
  if (!outcome.ok) {
    print(`${outcome.plan.stale.length} of ${total} entries checked: ${summary(results)}; config.lock not updated`)
    return false
  }
  if (outcome.lockChanged) writeConfigLock(settings.lockFile, outcome.nextLock)
  print(`${outcome.plan.stale.length} of ${total} entries checked: ${summary(results)}; config.lock ${outcome.lockChanged ? 'written' : 'unchanged'} (${settings.lockFile})`)
  return true
}
