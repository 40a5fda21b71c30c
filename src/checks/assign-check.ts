import { isPrheraldError } from '../errors.ts'
import type { GitHost, HostApi } from '../hosts/contract.ts'
import type { Route } from '../routing/resolve-route.ts'
import type { CheckResult } from './check-result.ts'

/** What the assign check reads: the host's API where prherald has credentials. */
export interface AssignCheckContext {
  host: GitHost
  /** undefined without the host's token: nobody can be asked. */
  api: Pick<HostApi, 'teamMembers' | 'requestReviewers'> | undefined
  /** `teams:` of the host: team key -> Slack user group. */
  teams: Readonly<Record<string, string>>
}

/**
 * assign: an entry's `assign.team` exists where its members are read (the host's team, or the Slack user group
 * `teams:` names), and prherald can request reviews there. Never FAIL: without it the pull requests are still
 * announced, only nobody is assigned (WARN, with the fix). A host's own team assignment (GitHub's "code review
 * assignment") cannot be read through its API: the OK says how prherald lives beside it.
 */
export async function assignCheck(ctx: AssignCheckContext, route: Route, target: string): Promise<CheckResult | undefined> {
  const assign = route.assign
  if (!assign) return undefined
  const warn = (reason: string, fix: string): CheckResult => ({ name: 'assign', target, status: 'WARN', reason, fix })
  const token = ctx.host.variables.token
  if (!ctx.api?.requestReviewers) return warn(`${token} is not set: reviewers of ${assign.team} cannot be requested`, `set ${token} to a token that may request reviews`)
  const what = `${assign.count} by ${assign.strategy}${assign.skipAway ? ', skipping people away' : ''}`
  const group = Object.entries(ctx.teams).find(([key]) => key.toLowerCase() === assign.team.toLowerCase())?.[1]
  const slackGroup: CheckResult = { name: 'assign', target, status: 'OK', reason: `team ${assign.team} is the Slack user group ${group ?? '(none)'}, its members mapped back through users:; ${what}` }
  if (!ctx.api.teamMembers) return slackGroup
  try {
    const members = await ctx.api.teamMembers(route.owner, assign.team)
    if (members.length === 0) return warn(`${ctx.host.words.name} team ${route.owner}/${assign.team} has no members`, `add people to the team, or name another team in assign.team`)
    return {
      name: 'assign', target, status: 'OK',
      reason: `${ctx.host.words.name} team ${route.owner}/${assign.team}: ${members.length} members, ${what}. ${ctx.host.words.name}'s own review assignment for the team cannot be read here: members it asked before prherald decides count towards count; if it is on, keep one of the two`,
    }
  } catch (error) {
    if (isPrheraldError(error, 'git_host_not_found')) {
      // No such team at the host: the Slack user group `teams:` names stands in for it, as assign reads it.
      if (group !== undefined) return slackGroup
      return warn(`${ctx.host.words.name} has no team ${assign.team} in ${route.owner} (or ${token} cannot see it)`, `write the team's slug (from its URL) in assign.team and teams:, and give ${token} read access to the organisation's teams`)
    }
    return { ...warn(`the members of ${assign.team} could not be read (${isPrheraldError(error) ? error.message : 'error'})`, isPrheraldError(error) && error.fix ? error.fix : 'run the check again later'), unavailable: true }
  }
}
