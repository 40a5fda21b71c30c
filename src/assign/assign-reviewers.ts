import { userKeyOf } from '../../machines/account-ids.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { waitingOn } from '../../machines/review-requests.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import { mappedId } from '../config/people-map.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import { openPullRequests } from '../personal/pull-request-lists.ts'
import type { AssignSettings } from '../routing/resolve-route.ts'
import { renderAssignment } from '../slack/render-assignment.ts'
import type { AssignmentStore } from '../store/assignment-store.ts'
import type { MessageStore, PullRequestRef } from '../store/store.ts'
import type { AwayCheck } from './away-check.ts'
import { chooseReviewers } from './choose-reviewers.ts'

/** How long a host team's members stand before they are read again. */
export const ASSIGN_MEMBERS_TTL_MS = 15 * 60_000

export interface AssignReviewersDeps {
  hosts: HostSet
  store: AssignmentStore & Pick<MessageStore, 'openMessages'>
  away: AwayCheck
  /** A Slack user group's members (the personal side's directory, cached there). */
  groupMembers(group: string): Promise<string[]>
  logger: Logger
  now: () => number
}

export interface AssignInput {
  ref: PullRequestRef
  /** The batch's latest delivery: whose pull request, on which host. */
  event: PullRequestEvent
  assign: AssignSettings
  /** The pull request after the batch: its author, who is asked, who reviewed. */
  context: PullRequestContext
  /** Announced in this batch (not as a draft), made ready, or the team asked to review in it. */
  trigger: boolean
  facts: LogFields
}

/** The thread line to post (once per pull request: its reply key), when the assignment was carried out. */
export interface AssignedLine {
  replyKey: string
  text: string
}

/**
 * `assign:` (docs/review-loop.md, "Assigning reviewers"): one decision per pull request, claimed in its own
 * row (the first writer's stands, on every replica and after a crash), then asked of the host. A failed
 * request is logged and asked again with the pull request's next batch; the decision does not change.
 */
export function createAssignReviewers(deps: AssignReviewersDeps) {
  const members = new Map<string, { at: number; keys: string[] }>()

  /** The team's members as `users:` keys: the host's team where it has them, else the Slack user group `teams:` names, mapped back. */
  async function teamMembers(own: ConnectedHost, owner: string, team: string): Promise<string[]> {
    const norm = own.host.people.caseInsensitive ? team.toLowerCase() : team
    const cacheKey = [own.id, owner.toLowerCase(), norm].join(' ')
    const cached = members.get(cacheKey)
    if (cached && deps.now() - cached.at < ASSIGN_MEMBERS_TTL_MS) return cached.keys
    let keys = own.api?.teamMembers ? await hostTeam(own, owner, team) : undefined
    if (keys === undefined) {
      const group = mappedId(own.teams, team)
      const slackIds = new Set(group === undefined ? [] : await deps.groupMembers(group))
      keys = Object.entries(own.users).filter(([, id]) => slackIds.has(id)).map(([key]) => key)
    }
    keys = [...new Set(keys)].sort()
    // An empty team is read again next time: a team just created, or a group Slack could not give, fills later.
    if (keys.length > 0) members.set(cacheKey, { at: deps.now(), keys })
    return keys
  }

  /** The host's team of that name, as `users:` keys; undefined when the host has none (the Slack user group stands in). */
  async function hostTeam(own: ConnectedHost, owner: string, team: string): Promise<string[] | undefined> {
    try {
      return (await own.api!.teamMembers!(owner, team)).map((l) => (own.host.people.caseInsensitive ? l.toLowerCase() : l))
    } catch (error) {
      if (isPrheraldError(error, 'git_host_not_found')) return undefined
      throw error
    }
  }

  /** Each person's open review requests across every host, by Slack user where mapped (one person, several hosts). */
  async function loads(ref: PullRequestRef): Promise<Map<string, number>> {
    const counts = new Map<string, number>()
    for (const { context } of openPullRequests(await deps.store.openMessages())) {
      if (context.provider === ref.provider && `${context.owner}/${context.repo}` === ref.repository && context.number === ref.prNumber) continue
      const own = deps.hosts.get(context.provider)
      for (const r of waitingOn(context)) {
        if (r.type !== 'user') continue
        const key = personKey(own, context.provider, r.accountId ?? r.login)
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
    }
    return counts
  }

  async function decide(own: ConnectedHost, input: AssignInput) {
    const norm = (key: string) => (own.host.people.caseInsensitive ? key.toLowerCase() : key)
    const { context, assign } = input
    const team = await teamMembers(own, input.event.owner, assign.team)
    const asked = new Set([
      ...waitingOn(context).flatMap((r) => (r.type === 'user' ? [norm(r.accountId ?? r.login)] : [])),
      ...[...context.approvedBy, ...context.changesRequestedBy].map((name) => norm(userKeyOf(context, name))),
    ])
    // Members asked already (by a person, or by the host's own team assignment) count towards `count`.
    const wanted = assign.count - team.filter((m) => asked.has(m)).length
    if (wanted <= 0) return { team, chosen: [], skipped: [], wanted }
    const excluded = new Set([...asked, norm(userKeyOf(context, context.author))])
    const away = new Map<string, string>()
    if (assign.skipAway) {
      for (const member of team) {
        const slackUser = mappedId(own.users, member)
        const why = slackUser === undefined || excluded.has(member) ? undefined : await deps.away.whyAway(slackUser)
        if (why !== undefined) away.set(member, why)
      }
    }
    const last = (await deps.store.lastAssignment(teamKey(input)))?.reviewers ?? []
    const load = new Map<string, number>()
    if (assign.strategy === 'least_busy') {
      const counts = await loads(input.ref)
      for (const member of team) load.set(member, counts.get(personKey(own, own.id, member)) ?? 0)
    }
    return { team, wanted, ...chooseReviewers({ ...assign, count: wanted }, { members: team, excluded, away, last, load }) }
  }

  return async function assignReviewers(input: AssignInput): Promise<AssignedLine | undefined> {
    const own = deps.hosts.get(input.event.provider)
    if (!own) return undefined
    const facts = { ...input.facts, team: input.assign.team }
    let record = await deps.store.assignmentOf(input.ref)
    if (!record) {
      if (!input.trigger) return undefined
      let choice
      try {
        choice = await decide(own, input)
      } catch (error) {
        deps.logger.warn('reviewers could not be assigned: the team\'s members could not be read', { ...facts, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
        return undefined
      }
      if (choice.chosen.length === 0) {
        deps.logger.info('no reviewer assigned', { ...facts, members: choice.team.length, wanted: Math.max(0, choice.wanted), passed_over: choice.skipped.length })
        return undefined
      }
      const person = (key: string) => ({ name: nameOf(input.context, key), slackUser: mappedId(own.users, key) })
      const said = renderAssignment(choice.chosen.map(person), input.assign.strategy, choice.skipped.map((s) => ({ name: nameOf(input.context, s.member), why: s.why })))
      record = await deps.store.claimAssignment({ ...input.ref, teamKey: teamKey(input), reviewers: choice.chosen, said, decidedAt: deps.now() })
    }
    let requestedNow = false
    if (record.requestedAt === null) {
      if (!own.api?.requestReviewers) {
        deps.logger.warn('reviewers could not be assigned: no API credentials', { ...facts, fix: `set ${own.host.variables.token} to a token that may request reviews` })
        return undefined
      }
      try {
        await own.api.requestReviewers({ owner: input.event.owner, repo: input.event.repo, number: input.event.number }, record.reviewers)
        await deps.store.markRequested(input.ref, deps.now())
        requestedNow = true
        deps.logger.info('reviewers assigned', { ...facts, reviewers: record.reviewers.length })
      } catch (error) {
        deps.logger.warn('the host refused the review request; asked again with the pull request\'s next delivery', { ...facts, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
        return undefined
      }
    }
    // The line once the host took the request; its reply key keeps it to one post however often this runs.
    return requestedNow || input.trigger ? { replyKey: 'assigned-reviewers', text: record.said } : undefined
  }
}

export type AssignReviewers = ReturnType<typeof createAssignReviewers>

/** Round robin's position is per host, owner and team. */
const teamKey = (input: AssignInput) => [input.event.provider, input.event.owner, input.assign.team].join(' ').toLowerCase()

/** One person across hosts: their Slack user where `users:` maps them, else the host and key. */
function personKey(own: ConnectedHost | undefined, provider: string, key: string): string {
  const slack = own ? mappedId(own.users, key) : undefined
  return slack ?? [provider, own?.host.people.caseInsensitive === false ? key : key.toLowerCase()].join(' ')
}

/** How the pull request names a person: the login (Bitbucket: the nickname its account id belongs to), else the key itself. */
function nameOf(context: PullRequestContext, key: string): string {
  const named = Object.entries(context.accountIds ?? {}).find(([, id]) => id === key)
  return named?.[0] ?? key
}
