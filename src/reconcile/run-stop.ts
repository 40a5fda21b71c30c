import type { PrheraldError } from '../errors.ts'
import type { GitHost } from '../hosts/contract.ts'

export { stopsRun } from '../hosts/git-host-error.ts'

/** Why a reconcile run stopped before checking everything: the message and what to do. */
export interface RunStop {
  message: string
  fix: string | undefined
}

/** The report's `stopped` line; a refused token is named by its variable, the host's 401 kept as the detail. */
export function runStop(host: GitHost, error: PrheraldError): RunStop {
  if (error.code !== 'git_host_auth') return { message: error.message, fix: error.fix }
  return { message: `${host.words.name} refused the token in ${host.variables.token} (${error.message})`, fix: error.fix }
}
