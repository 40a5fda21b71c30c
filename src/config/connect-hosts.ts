import type { HostSecrets, HostSettings } from './settings.ts'
import { PrheraldError } from '../errors.ts'
import type { HostApi } from '../hosts/contract.ts'
import type { TalkBackApi } from '../hosts/talk-back-contract.ts'

/** A configured host as the composition root hands it out: its settings, its secrets, and its API built once. */
export interface ConnectedHost extends HostSettings, HostSecrets {
  /** undefined without API credentials: the features that need them are off for this host. */
  api: HostApi | undefined
  /** The host's talk-back API over its OAuth client; undefined without one (nobody links there) or where the host has no talk-back. */
  talkBack: TalkBackApi | undefined
}

/** Every configured host by id: a pull request's host is looked up by the id its key carries. */
export type HostSet = ReadonlyMap<string, ConnectedHost>

/**
 * Builds each configured host's API clients once, for every part of the process to share: the one place hosts
 * are connected. `now` is the talk-back token calls' clock (when a token ends); tests move it.
 */
export function connectHosts(hosts: readonly HostSettings[], secrets: Readonly<Record<string, HostSecrets>>, now: () => number = Date.now): HostSet {
  return new Map(hosts.map((settings) => {
    const own = secrets[settings.id] ?? { webhookSecret: '', gitAccess: { token: undefined, extra: {}, scheme: undefined } }
    const talkBack = own.oauth && settings.host.talkBack ? settings.host.talkBack.connect(own.oauth, settings.apiUrl, now) : undefined
    return [settings.id, { ...settings, ...own, api: settings.host.connect(own.gitAccess, settings.apiUrl), talkBack }]
  }))
}

/** For the commands: each host's API credentials from the environment, no webhook secret needed. */
export function connectHostsFromEnv(hosts: readonly HostSettings[], env: Readonly<Record<string, string | undefined>>): HostSet {
  return connectHosts(hosts, Object.fromEntries(hosts.map((h) => [h.id, { webhookSecret: env[h.host.variables.secret] ?? '', gitAccess: h.host.readAccess(env) }])))
}

/** The hosts a command runs for: the one `--provider` names (refused when not configured), else all of them. */
export function chooseHosts(hosts: HostSet, provider: string | undefined): ConnectedHost[] {
  if (provider === undefined) return [...hosts.values()]
  const own = hosts.get(provider)
  if (own === undefined) {
    throw new PrheraldError('usage', `--provider ${provider} is not a configured host`, { fix: `use one of: ${[...hosts.keys()].join(', ')}` })
  }
  return [own]
}
