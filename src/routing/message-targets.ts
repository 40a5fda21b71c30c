import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Route } from '../routing/resolve-route.ts'

/** One Slack message a pull request is announced with: the channel and the mentions it carries. */
export interface MessageTarget {
  channel: string
  mentions: string[]
}

/**
 * Chooses the channels a pull request is first announced in. The default is the repository's channels;
 * per-path routing replaces it with one that looks at the changed files.
 */
export type ChooseTargets = (event: PullRequestEvent, route: Route) => Promise<MessageTarget[]>

export const repositoryChannel: ChooseTargets = async (_event, route) => route.targets.map((t) => ({ channel: t.channel, mentions: [...t.mentions] }))
