import { PrheraldError } from '../errors.ts'
import type { HostSettings } from './settings.ts'

/**
 * The host a one-host command works on (smoke, create-webhook): the one `--provider` names, or the only one
 * configured. With several and none named, the command asks for `--provider` rather than guess.
 */
export function pickHost(hosts: readonly HostSettings[], provider: string | undefined): HostSettings {
  const ids = hosts.map((h) => h.id).join(', ')
  if (provider !== undefined) {
    const own = hosts.find((h) => h.id === provider)
    if (!own) throw new PrheraldError('usage', `--provider ${provider} is not a configured host`, { fix: `use one of: ${ids}` })
    return own
  }
  if (hosts.length === 1) return hosts[0]!
  throw new PrheraldError('usage', `the configuration has several hosts (${ids}): name one`, { fix: `add --provider with one of: ${ids}` })
}
