import { isPrheraldError } from '../errors.ts'
import type { HostApi } from '../hosts/contract.ts'
import type { CheckResult } from './check-result.ts'

/**
 * [access]: where the host's credentials differ per owner (a GitHub App's installations), one line per mapped
 * owner saying whether its calls can authenticate; nothing for a token, which is the same for every owner.
 */
export async function ownerAccessResults(api: HostApi | undefined, owners: readonly string[]): Promise<CheckResult[]> {
  const check = api?.ownerAccess
  if (!check) return []
  return Promise.all(owners.map(async (owner): Promise<CheckResult> => {
    try {
      return { name: 'access', target: owner, status: 'OK', reason: await check(owner) }
    } catch (error) {
      if (!isPrheraldError(error)) throw error
      return { name: 'access', target: owner, status: 'FAIL', reason: error.message, fix: error.fix }
    }
  }))
}
