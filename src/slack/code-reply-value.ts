import type { Provider } from '../../machines/pull-request-event.ts'
import { HOSTS } from '../hosts/registry.ts'

/** What a mirrored code comment's Reply button carries: the pull request and the code thread a reply goes to. */
export interface CodeThreadTarget {
  provider: Provider
  owner: string
  repo: string
  number: number
  /** The host's code thread (machines/pull-request-event.ts, HostComment.thread): opaque here. */
  thread: string
}

/** `github:acme/api#42 123`: the pull request's key and the thread, which holds no space (ids and GitLab's hex). */
export function codeReplyValue(prKey: string, thread: string): string {
  return `${prKey} ${thread}`
}

// The owner may hold slashes (a nested group); the repository, the last segment, never does.
const VALUE = /^([a-z][a-z0-9-]{0,30}):([^#\s]+)\/([^/#\s]+)#(\d{1,9}) ([\w.-]{1,100})$/

/** The button's value back into its target; undefined when it is not one prherald wrote. Pure. */
export function decodeCodeReplyValue(value: string): CodeThreadTarget | undefined {
  const match = VALUE.exec(value)
  if (!match || !HOSTS.has(match[1]!)) return undefined
  return { provider: match[1] as Provider, owner: match[2]!, repo: match[3]!, number: Number(match[4]), thread: match[5]! }
}
