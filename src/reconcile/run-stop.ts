import { SECRET_VARIABLES } from '../config/load-config.ts'
import type { Provider } from '../decode/pull-request-event.ts'
import { isPrheraldError, type PrheraldError } from '../errors.ts'

/** Why a reconcile run stopped before checking everything: the message and what to do. */
export interface RunStop {
  message: string
  fix: string | undefined
}

/**
 * An error after which no further call of the run can succeed, so the run stops instead of failing every
 * pull request (and every webhook log) the same way: a rate limit held longer than a run waits, and a token
 * the host refuses (401).
 */
export function stopsRun(error: unknown): error is PrheraldError {
  return isPrheraldError(error, 'git_host_rate_limited') || isPrheraldError(error, 'git_host_auth')
}

/** The report's `stopped` line; a refused token is named by its variable, the host's 401 kept as the detail. */
export function runStop(provider: Provider, error: PrheraldError): RunStop {
  if (error.code !== 'git_host_auth') return { message: error.message, fix: error.fix }
  const host = provider === 'github' ? 'GitHub' : 'Bitbucket'
  return { message: `${host} refused the token in ${SECRET_VARIABLES[provider].token} (${error.message})`, fix: error.fix }
}
