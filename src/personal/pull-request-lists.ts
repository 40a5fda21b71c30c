import { userKeyOf } from '../../machines/account-ids.ts'
import { waitingOn } from '../../machines/review-requests.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { mappedId } from '../config/people-map.ts'
import { pullRequestLink } from '../slack/render-direct-message.ts'
import { escapeText } from '../slack/render-message.ts'
import type { People } from '../slack/person-names.ts'
import type { HostPeople } from './person-of.ts'
import type { OpenMessage } from '../store/store.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'

export interface OpenPullRequest {
  context: PullRequestContext
  channels: string[]
  activityAt: number
}

/** The open pull requests behind the stored messages, each once, with the channels that show it. */
export function openPullRequests(rows: readonly OpenMessage[]): OpenPullRequest[] {
  const byKey = new Map<string, OpenPullRequest>()
  for (const row of rows) {
    const key = pullRequestKey(row)
    const known = byKey.get(key)
    if (known) {
      known.channels.push(row.channel)
      continue
    }
    byKey.set(key, { context: row.lifecycle.context, channels: [row.channel], activityAt: row.activityAt })
  }
  return [...byKey.values()]
}

const DAY = 24 * 3600_000
export const age = (sinceMs: number, now: number): string => {
  const days = Math.floor((now - sinceMs) / DAY)
  return days >= 1 ? `${days} d` : `${Math.max(0, Math.floor((now - sinceMs) / 3600_000))} h`
}

/**
 * `/prherald mine`: what waits on `me` (a review requested of me, or of a team I am in) and my pull requests
 * that wait on someone, oldest first, as mrkdwn: every name from the git host escaped, as in the channel
 * message. Pure, given the team members.
 */
export function minePullRequests(prs: readonly OpenPullRequest[], me: string, people: HostPeople, teamsOf: ReadonlySet<string>, now: number): string[] {
  const byAge = [...prs].sort((a, b) => Date.parse(a.context.createdAt) - Date.parse(b.context.createdAt))
  // Each pull request is read with its own host's maps; a host no longer configured has none, so it is not listed.
  const none: People = { users: {}, teams: {} }
  const own = (context: PullRequestContext) => people.get(context.provider) ?? none
  const waiting = byAge.filter(({ context }) => waitingOn(context).some((r) =>
    r.type === 'user' ? mappedId(own(context).users, r.accountId ?? r.login) === me : teamsOf.has(mappedId(own(context).teams, r.slug) ?? '')))
  const mine = byAge.filter(({ context }) => mappedId(own(context).users, userKeyOf(context, context.author)) === me)
  const line = (context: PullRequestContext, tail: string) => `• ${pullRequestLink(context)} · ${age(Date.parse(context.createdAt), now)} old${tail}`
  return [
    waiting.length > 0 ? '*Waiting on you*' : 'Nothing waits on you.',
    ...waiting.map(({ context }) => line(context, '')),
    mine.length > 0 ? '*Your pull requests*' : 'You have no open pull requests prherald shows.',
    ...mine.map(({ context }) => {
      const on = waitingOn(context).map((r) => escapeText(r.type === 'user' ? r.login : r.name))
      return line(context, on.length > 0 ? ` · waits on ${on.join(', ')}` : ' · waits on a reviewer')
    }),
  ]
}

/** `/prherald channel`: this channel's open pull requests, the longest quiet first. */
export function channelPullRequests(prs: readonly OpenPullRequest[], channel: string, now: number): string[] {
  const here = prs.filter((p) => p.channels.includes(channel)).sort((a, b) => a.activityAt - b.activityAt)
  if (here.length === 0) return ['No open pull requests in this channel.']
  return [`*Open pull requests here* (${here.length}, the longest quiet first)`, ...here.map((p) => `• ${pullRequestLink(p.context)} · quiet for ${age(p.activityAt, now)}`)]
}
