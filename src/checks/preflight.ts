import { configFilePath, loadSettings, readSlackSigningSecret, type Env } from '../config/load-config.ts'
import { HOSTS } from '../hosts/registry.ts'
import type { GitHost } from '../hosts/contract.ts'
import { redactUrl } from '../log/redact-url.ts'
import type { HostSettings, Settings } from '../config/settings.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { isPrheraldError } from '../errors.ts'
import type { ConfigLock } from '../lock/config-lock.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import type { DatabaseReport } from '../store/inspect-database.ts'
import type { CheckResult } from './check-result.ts'
import { directMessagesResult } from './personal-scopes.ts'
import { remindersResult } from './reminders-check.ts'
import { reviewButtonResult } from './review-button-check.ts'
import { planValidation } from './validate-config.ts'
import { shortSecretResult } from './webhook-secret-check.ts'
import { publicUrlProblem } from '../config/public-url.ts'

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const isSet = (env: Env, name: string) => (env[name] ?? '').trim() !== ''

/**
 * The configuration error as one FAIL line per problem: an invalid file lists each key on a `  - key: …`
 * line of its message, and the operator reads (and greps) them one by one, not as one run-on line. Any other
 * error (a missing file, a YAML syntax error) stays one line. The target names the file either way.
 */
function loadFailure(env: Env, error: unknown): CheckResult[] {
  const target = configFilePath(env)
  if (!isPrheraldError(error)) return [{ name: 'file', target, status: 'FAIL', reason: String(error) }]
  const lines = error.message.split('\n')
  const problems = lines.filter((l) => /^\s+- /.test(l)).map((l) => l.replace(/^\s+- /, ''))
  const reasons = problems.length > 0 ? problems : [lines.map((l) => l.trim()).filter(Boolean).join(' ')]
  return reasons.map((reason, i) => ({
    name: 'file', target, status: 'FAIL', reason, fix: i === reasons.length - 1 ? error.fix : undefined,
  }))
}

/**
 * The secrets, as set or missing, never their values: each configured host's. Without a loaded config the
 * hosts are unknown, so any webhook secret will do: the operator still learns what the environment lacks in the same run.
 */
function secretResults(env: Env, hosts: readonly GitHost[] | undefined): CheckResult[] {
  const secret = (name: string, what: string): CheckResult => isSet(env, name)
    ? { name: 'secret', target: name, status: 'OK', reason: 'set' }
    : { name: 'secret', target: name, status: 'FAIL', reason: 'missing', fix: `set ${name} (${what}) in the environment or in .env` }
  const slack = secret('SLACK_BOT_TOKEN', 'the Bot User OAuth Token of your Slack app, xoxb-…')
  if (!hosts) {
    const either = [...HOSTS.values()].map((host) => host.variables.secret)
    const set = either.filter((name) => isSet(env, name))
    return [slack, set.length > 0
      ? { name: 'secret', target: either.join(' / '), status: 'OK', reason: `${set.join(', ')} set` }
      : { name: 'secret', target: either.join(' / '), status: 'FAIL', reason: 'neither is set', fix: 'set the one for your git_provider (the secret set on the webhook) in the environment or in .env' }]
  }
  return [slack, ...hosts.flatMap((host): CheckResult[] => {
    const token = host.variables.token
    const webhookSecret = host.variables.secret
    return [
      shortSecretResult(webhookSecret, env[webhookSecret]) ?? secret(webhookSecret, `the secret set on the ${host.words.name} webhook`),
      isSet(env, token)
        ? { name: 'token', target: token, status: 'OK', reason: 'set' }
        : { name: 'token', target: token, status: 'SKIP', reason: `missing (optional: ${host.words.name}'s path routing and webhook check need it)` },
    ]
  })]
}

/** How API calls authenticate, when the host says; unusable credentials (an unreadable key file) are a FAIL. */
function authResults(env: Env, host: GitHost): CheckResult[] {
  const target = host.variables.extra.join(' / ')
  try {
    const scheme = host.readAccess(env).scheme
    return scheme === undefined ? [] : [{ name: 'auth', target, status: 'OK', reason: scheme }]
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    return [{ name: 'auth', target, status: 'FAIL', reason: error.message, fix: error.fix }]
  }
}

/**
 * PRHERALD_PUBLIC_URL: https://, or http:// on loopback only (config/public-url.ts); never shown with its
 * user-info. The doctor's line, and a FAIL that stops the server's start (validate-at-startup.ts): one rule.
 */
export function publicUrlResult(url: string | undefined): CheckResult {
  const target = 'PRHERALD_PUBLIC_URL'
  if (!url) return { name: 'public url', target, status: 'SKIP', reason: 'not set (create-webhook needs it, and talk-back\'s account links)' }
  const problem = publicUrlProblem(url)
  if (problem) return { name: 'public url', target, status: 'FAIL', reason: `${redactUrl(url)} ${problem}`, fix: `set PRHERALD_PUBLIC_URL to the https:// URL the git host delivers to` }
  return { name: 'public url', target, status: 'OK', reason: redactUrl(url) }
}

/** [config]: the file parses, the secrets are present (set/missing, never their values), and the derived settings. */
export function configSection(env: Env, load: () => Settings = () => loadSettings(env)): { results: CheckResult[]; settings: Settings | undefined } {
  let settings: Settings
  try {
    settings = load()
  } catch (error) {
    return { settings: undefined, results: [...loadFailure(env, error), ...secretResults(env, undefined)] }
  }
  const hosts = settings.hosts.map((h) => h.host)
  const entries = plural(settings.hosts.flatMap((h) => listRoutes(h.mappings)).length, 'mapping entry', 'mapping entries')
  const form = settings.hostsForm === 'hosts' ? `hosts ${settings.hosts.map((h) => h.id).join(', ')}` : `git_provider ${settings.hosts.map((h) => h.id).join('')}`
  const results: CheckResult[] = [
    { name: 'file', target: settings.configFile, status: 'OK', reason: `parses: ${form}, ${entries}` },
    ...secretResults(env, hosts),
    reviewButtonResult(env, settings.socketMode),
    directMessagesResult(settings, readSlackSigningSecret(env) !== undefined || settings.socketMode),
    ...remindersResult(settings, readSlackSigningSecret(env) !== undefined || settings.socketMode),
  ]
  results.push(...hosts.flatMap((host) => authResults(env, host)))
  results.push(
    { name: 'ttl', target: 'cleanup.message_ttl_days', status: 'OK', reason: `${settings.messageTtlDays} days` },
    { name: 'database', target: redactUrl(settings.databaseUrl), status: 'OK', reason: settings.database.kind === 'sqlite' ? settings.database.path : 'PostgreSQL: replicas may share it' },
    publicUrlResult(settings.publicUrl),
  )
  return { settings, results }
}

/** `12 rows`, or `12 rows (2 without a Slack message: ended before they were announced)`. */
const messageRows = (n: number, withoutMessage: number) =>
  `${plural(n, 'row')}${withoutMessage > 0 ? ` (${withoutMessage} without a Slack message: ended before they were announced)` : ''}`

/** [database], pure: judges what inspectDatabase read; `report` undefined means there is no file yet. */
export function databaseSection(path: string, report: DatabaseReport | undefined, configured?: readonly Provider[]): CheckResult[] {
  if (!report) {
    return [{ name: 'file', target: path, status: 'SKIP', reason: 'not created yet; the server creates it and its directory at start-up (or run prherald-migrate up)' }]
  }
  const { applied, pending, unknown } = report.migrations
  const migrations: CheckResult = unknown.length > 0
    ? { name: 'migrations', target: path, status: 'FAIL', reason: `applied migrations unknown to this version: ${unknown.join(', ')}`, fix: 'the database belongs to a newer prherald; run that version, or restore a backup' }
    : pending.length > 0
      ? { name: 'migrations', target: path, status: 'SKIP', reason: `${applied.length} applied, ${pending.length} pending (${pending.join(', ')}); the server applies them at start-up, or run prherald-migrate up` }
      : { name: 'migrations', target: path, status: 'OK', reason: `all ${applied.length} applied` }
  const rows = (n: number | undefined, text: (n: number) => string) => (n === undefined ? 'table not created yet' : text(n))
  // Rows of several hosts live side by side; a host taken out of the file keeps its rows, unlisted.
  const gone = report.hosts.filter((h) => configured !== undefined && !configured.includes(h))
  const provider: CheckResult[] = configured === undefined ? [] : [
    report.hosts.length === 0
      ? { name: 'hosts', target: path, status: 'OK', reason: `no pull request yet; serves ${configured.join(', ')}` }
      : { name: 'hosts', target: path, status: 'OK', reason: `holds pull requests of ${report.hosts.join(', ')}${gone.length > 0 ? `; ${gone.join(', ')} no longer configured: its rows are kept and not listed` : ''}` },
  ]
  return [
    { name: 'file', target: path, status: 'OK', reason: 'opens' },
    migrations,
    ...provider,
    { name: 'slack_messages', target: path, status: 'OK', reason: rows(report.messages, (n) => messageRows(n, report.withoutMessage ?? 0)) },
    { name: 'intake', target: path, status: 'OK', reason: rows(report.waiting, (n) => `${plural(n, 'delivery', 'deliveries')} waiting${n > 0 ? '; replayed at the next start' : ''}`) },
    ...(report.parked ? [{
      name: 'parked', target: path, status: 'WARN' as const, reason: `${plural(report.parked, 'delivery', 'deliveries')} parked after too many failed attempts (the server log says why)`,
      fix: 'fix the cause, then run prherald-migrate replay-parked',
    }] : []),
  ]
}

/** [mappings], pure: entry count, whether path rules can work, and which entries the next start will validate. */
export function mappingsSection(settings: Pick<Settings, 'configFile' | 'lockFile'>, own: HostSettings, gitTokenSet: boolean, lock: ConfigLock): CheckResult[] {
  const routes = listRoutes(own.mappings)
  const target = settings.configFile
  const owners = new Set(routes.map((r) => r.owner)).size
  const withPaths = routes.filter((r) => r.paths.length > 0).length
  const token = own.host.variables.token
  const plan = planValidation({ host: own.host, mappings: own.mappings }, lock, gitTokenSet, false)
  const results: CheckResult[] = [
    routes.length === 0
      ? { name: 'entries', target, status: 'SKIP', reason: 'no mapping entries: every delivery is ignored' }
      : { name: 'entries', target, status: 'OK', reason: `${plural(routes.length, 'entry', 'entries')} for ${plural(owners, 'owner')}` },
    withPaths === 0
      ? { name: 'path routing', target: token, status: 'OK', reason: 'no path rules' }
      : gitTokenSet
        ? { name: 'path routing', target: token, status: 'OK', reason: `${plural(withPaths, 'entry', 'entries')} with path rules; ${token} is set` }
        : { name: 'path routing', target: token, status: 'SKIP', reason: `${plural(withPaths, 'entry', 'entries')} with path rules, but ${token} is not set: path rules are inert` },
  ]
  const lockTarget = settings.lockFile
  if (routes.length === 0) return results
  if (plan.stale.length === 0) results.push({ name: 'config.lock', target: lockTarget, status: 'OK', reason: `current for all ${routes.length} entries` })
  else if (plan.current.length === 0) results.push({ name: 'config.lock', target: lockTarget, status: 'SKIP', reason: 'no entry validated yet: the next server start validates every entry' })
  else results.push({ name: 'config.lock', target: lockTarget, status: 'SKIP', reason: `${plan.stale.length} of ${routes.length} entries new or changed: the next server start validates them` })
  return results
}
