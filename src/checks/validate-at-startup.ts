import type { Secrets, Settings } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { readConfigLock, writeConfigLock } from '../lock/config-lock.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { countByStatus, type CheckResult } from './check-result.ts'
import { createCheckContext, credentialsFromSecrets } from './check-context.ts'
import { validateConfig } from './validate-config.ts'
import { hasCredentials } from '../hosts/contract.ts'

export interface StartupValidationOptions {
  settings: Settings
  secrets: Secrets
  logger: Logger
  /** Re-validate every entry, ignoring config.lock. */
  force: boolean
}

/**
 * Runs before the server opens anything: validates the mapping entries that are new or changed since
 * config.lock, refuses to start on any FAIL (SKIP is fine), and records the success. A boot whose lock is
 * current makes no call to Slack or the git host.
 */
export async function validateAtStartup(options: StartupValidationOptions): Promise<void> {
  const { settings, secrets, logger } = options
  const { lock, problem } = readConfigLock(settings.lockFile)
  if (problem) logger.warn('config.lock ignored', { reason: problem })
  const ctx = createCheckContext(settings, credentialsFromSecrets(secrets))
  const outcome = await validateConfig(ctx, lock, { gitTokenSet: hasCredentials(secrets.gitAccess), force: options.force })
  const results = [...(outcome.report.auth ? [outcome.report.auth] : []), ...outcome.report.entries.flatMap((e) => e.results)]
  for (const r of results) {
    const fields = { check: r.name, target: r.target, status: r.status, reason: r.reason, fix: r.fix }
    if (r.status === 'FAIL') logger.error('check failed', fields)
    else if (r.status === 'WARN') logger.warn('check warning', fields)
    else logger.debug('check', fields)
  }
  const counts = countByStatus(results)
  if (!outcome.ok) {
    throw new PrheraldError('validation_failed', `configuration check failed, not starting:\n${describeFailures(results)}`, {
      fix: 'fix the problems above and start again; prherald-config validate runs the same checks without starting the server',
    })
  }
  logger.info('configuration validated', {
    validated: outcome.plan.stale.length, unchanged: outcome.plan.current.length, ok: counts.OK, skip: counts.SKIP,
  })
  if (!outcome.lockChanged) return
  try {
    writeConfigLock(settings.lockFile, outcome.nextLock)
  } catch (error) {
    // Validation passed, so the server may run; the only cost of a missing lock is validating again next start.
    logger.warn('config.lock not written', errorFields(error))
  }
}

function describeFailures(results: readonly CheckResult[]): string {
  return results
    .filter((r) => r.status === 'FAIL')
    .map((r) => `  - ${r.target} ${r.name}: ${r.reason}${r.fix ? `\n    fix: ${r.fix}` : ''}`)
    .join('\n')
}
