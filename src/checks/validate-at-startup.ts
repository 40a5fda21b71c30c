import type { HostSet } from '../config/connect-hosts.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { hostLock, readConfigLock, writeConfigLock } from '../lock/config-lock.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { listRoutes, routeChannels } from '../routing/resolve-route.ts'
import { appTokenShape } from './app-token-check.ts'
import { countByStatus, type CheckResult } from './check-result.ts'
import { createCheckContext, credentialsFromSecrets } from './check-context.ts'
import { directMessagesResult } from './personal-scopes.ts'
import { remindersResult } from './reminders-check.ts'
import { publicUrlResult } from './preflight.ts'
import { reviewLoopChannelResults } from './review-loop-check.ts'
import { slackAccessCheck } from './slack-auth-check.ts'
import { validateConfig } from './validate-config.ts'
import { hasCredentials } from '../hosts/contract.ts'
import { entryKey } from '../lock/entry-hash.ts'
import { shortSecretResult } from './webhook-secret-check.ts'

export interface StartupValidationOptions {
  settings: Settings
  secrets: Secrets
  /** Every host with its API client, built once by the composition root (connectHosts). */
  hosts: HostSet
  logger: Logger
  /** Re-validate every entry, ignoring config.lock. */
  force: boolean
}

/**
 * Runs before the server opens anything: validates the mapping entries that are new or changed since
 * config.lock, refuses to start on any FAIL (SKIP is fine), and records the success. The lock spares the
 * entries' checks, never the token's: `auth.test` runs at every start, one cheap call, so that a token revoked
 * since the lock was written stops the start instead of failing the first delivery.
 *
 * The rule for the other side being down at start (docs/operations.md#the-other-side-down-at-start): Slack or
 * the git host not answering (unreachable, 5xx, rate limited) only warns, and the entries it could not check
 * stay unlocked for the next start; deliveries are stored and wait, so an outage never stops intake. Only what
 * can never work stops the start: a refused token, a wrong channel, a missing webhook.
 */
export async function validateAtStartup(options: StartupValidationOptions): Promise<void> {
  const { settings, secrets, hosts, logger } = options
  const { lock, problem } = readConfigLock(settings.lockFile, settings.hosts.map((h) => h.id))
  if (problem) logger.warn('config.lock ignored', { reason: problem })
  const credentials = credentialsFromSecrets(secrets)
  // Each host is checked on its own; what one host's API cannot answer is that host's warning, not the others'.
  const outcomes = []
  for (const own of hosts.values()) {
    const ctx = createCheckContext(settings, own, credentials)
    const gitTokenSet = hasCredentials(own.gitAccess)
    outcomes.push({ own, ctx, outcome: await validateConfig(ctx, hostLock(lock, own.id), { gitTokenSet, force: options.force }) })
  }
  const checked = outcomes.find((o) => o.outcome.report.auth)
  const first = outcomes[0]
  const { auth, scopes } = checked?.outcome.report.auth
    ? { auth: checked.outcome.report.auth, scopes: checked.outcome.report.scopes }
    : await slackAccessCheck(first?.ctx.slack, settings.hosts.flatMap((h) => listRoutes(h.mappings)).flatMap(routeChannels), first?.ctx.featureScopes ?? [], first?.ctx.personalScopes)
  const slackDown = auth.status === 'FAIL' && auth.unavailable === true
  const directMessages = directMessagesResult(settings, secrets.slackSigningSecret !== undefined || settings.socketMode)
  const reminders = remindersResult(settings, secrets.slackSigningSecret !== undefined || settings.socketMode)
  const shortSecrets = [...hosts.values()].flatMap((own) => shortSecretResult(own.host.variables.secret, own.webhookSecret) ?? [])
  const appToken = settings.socketMode ? [appTokenShape(true, secrets.slackAppToken)] : []
  // The doctor's rule for the public URL: an http:// one the doctor and setup refuse is not taken silently here.
  const publicUrl = settings.publicUrl === undefined ? [] : [publicUrlResult(settings.publicUrl)]
  // The review loop's own channels (insights.weekly, notify.merged_without_approval), checked as doctor does: every start.
  const reviewLoop = auth.status === 'FAIL' ? [] : await reviewLoopChannelResults(first?.ctx.slack, settings)
  const hostOfResult = new Map<CheckResult, string>()
  for (const { own, outcome } of outcomes) for (const r of outcome.report.entries.flatMap((e) => e.results)) hostOfResult.set(r, own.id)
  const results = [auth, ...scopes, directMessages, ...reminders, ...appToken, ...publicUrl, ...shortSecrets, ...reviewLoop, ...hostOfResult.keys()]
  for (const r of results) {
    const fields = { check: r.name, host: hostOfResult.get(r), target: r.target, status: r.status, reason: r.reason, fix: r.fix }
    if (r === auth && slackDown) logger.warn('Slack did not answer auth.test; starting anyway: deliveries are stored and posted once it answers', fields)
    else if (r.status === 'FAIL' && r.unavailable === true) logger.warn('could not check: the other side did not answer; starting anyway, the next start checks it again', fields)
    else if (r.status === 'FAIL') logger.error('check failed', fields)
    else if (r.status === 'WARN') logger.warn('check warning', fields)
    else logger.debug('check', fields)
  }
  if (auth.status === 'FAIL' && !slackDown) {
    throw new PrheraldError('slack_auth', `SLACK_BOT_TOKEN: ${auth.reason}; not starting`, {
      fix: auth.fix ?? 'set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) of your Slack app',
    })
  }
  const failures = results.filter((r) => r.status === 'FAIL' && r !== auth && r.unavailable !== true)
  if (failures.length > 0) {
    throw new PrheraldError('validation_failed', `configuration check failed, not starting:\n${describeFailures(failures)}`, {
      fix: 'fix the problems above and start again; prherald-config validate runs the same checks without starting the server',
    })
  }
  const counts = countByStatus(results)
  const stale = outcomes.reduce((n, o) => n + o.outcome.plan.stale.length, 0)
  logger.info('configuration validated', {
    hosts: settings.hosts.map((h) => h.id),
    validated: stale, unchanged: outcomes.reduce((n, o) => n + o.outcome.plan.current.length, 0), ok: counts.OK, skip: counts.SKIP,
  })
  if (slackDown && stale > 0) {
    // Their channels could not be checked: not locked, so the next start checks them.
    logger.warn('config.lock not updated: Slack could not check the new or changed entries; the next start checks them', { entries: stale })
    return
  }
  // An entry a side could not check stays out of the lock, so that the next start checks it.
  let unchecked = 0
  for (const { outcome } of outcomes) {
    const keys = outcome.report.entries.filter((e) => e.results.some((r) => r.status === 'FAIL' && r.unavailable === true)).map(entryKey)
    for (const key of keys) delete outcome.nextLock.entries[key]
    unchecked += keys.length
  }
  if (unchecked > 0) logger.warn('config.lock not updated for the entries a side could not check; the next start checks them', { entries: unchecked })
  if (!outcomes.some((o) => o.outcome.lockChanged)) return
  try {
    writeConfigLock(settings.lockFile, { version: 2, hosts: Object.fromEntries(outcomes.map(({ own, outcome }) => [own.id, outcome.nextLock])) })
  } catch (error) {
    // Validation passed, so the server may run; the only cost of a missing lock is validating again next start.
    logger.warn('config.lock not written', errorFields(error))
  }
}

function describeFailures(failures: readonly CheckResult[]): string {
  return failures
    .map((r) => `  - ${r.target} ${r.name}: ${r.reason}${r.fix ? `\n    fix: ${r.fix}` : ''}`)
    .join('\n')
}
