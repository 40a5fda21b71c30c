import PQueue from 'p-queue'
import type { Mappings } from '../config/schema.ts'
import type { GitHost } from '../hosts/contract.ts'
import type { WebhookApi } from '../hosts/webhooks.ts'
import type { CheckResult } from './check-result.ts'
import { mappingCheck } from './mapping-check.ts'
import { routeChannels } from '../routing/resolve-route.ts'
import type { SlackCheckOptions } from './slack-api.ts'
import type { FeatureScope } from './personal-scopes.ts'
import { slackAccessCheck } from './slack-auth-check.ts'
import { slackChannelCheck } from './slack-channel-check.ts'
import { gitHostFailure, webhookCheck } from './webhook-check.ts'
import { assignCheck, type AssignCheckContext } from './assign-check.ts'

export interface CheckContext {
  host: GitHost
  mappings: Mappings
  /** undefined when SLACK_BOT_TOKEN is not set: slack-auth then FAILs. */
  slack: SlackCheckOptions | undefined
  /** undefined when the provider's token is not set: webhook checks then SKIP. */
  git: WebhookApi | undefined
  /** Bot scopes a configured feature needs besides the lifecycle's (users:read.email for slack.lookup_users_by_email). */
  featureScopes?: readonly string[]
  /** The personal features' scopes, for those features the configuration can use: a WARN each when missing. */
  personalScopes?: readonly FeatureScope[]
  /** What the assign check reads (entries with `assign:`); absent: not checked. */
  assign?: Omit<AssignCheckContext, 'host'>
}

/** `owner/repo` as configured, or `owner/*` for the owner's catch-all entry. */
export interface EntryTarget {
  owner: string
  repo: string
}

export interface EntryReport {
  owner: string
  repo: string
  results: CheckResult[]
}

export interface ValidationReport {
  /** slack-auth runs once per run, not per entry; undefined when there was nothing to validate. */
  auth: CheckResult | undefined
  /** A slack-scope WARN per personal scope the token lacks; checked with slack-auth, from the same answer. */
  scopes: CheckResult[]
  entries: EntryReport[]
}

/** Every result of a validation, slack-auth first. */
export function reportResults(report: ValidationReport): CheckResult[] {
  return [...(report.auth ? [report.auth] : []), ...report.scopes, ...report.entries.flatMap((e) => e.results)]
}

/**
 * Calls to Slack and the git host in flight at once during one validation. Slack's conversations.info is
 * Tier 3 (50+ a minute) and GitHub allows far more concurrent requests; 4 keeps a run of dozens of entries
 * well inside both while no longer waiting on each answer in turn.
 */
export const CHECK_CONCURRENCY = 4

/** Called with each result as soon as its check completes, before the whole report is ready. */
export type OnResult = (result: CheckResult) => void

/**
 * Every check of every target: mapping, slack-channel for each channel the entry can post to (path rules'
 * channels included), and webhook, which for an owner's `"*"` entry means every repository of that owner
 * without an entry of its own. conversations.info is asked once per channel per run. Independent checks run
 * concurrently, at most CHECK_CONCURRENCY calls at a time; slack-channel waits for slack-auth (a bad token
 * would fail them all). The report keeps the targets' order whatever order the answers came in.
 */
export async function validateEntries(ctx: CheckContext, targets: readonly EntryTarget[], onResult: OnResult = () => {}): Promise<ValidationReport> {
  if (targets.length === 0) return { auth: undefined, scopes: [], entries: [] }
  const channels = targets.flatMap(({ owner, repo }) => {
    const { route } = mappingCheck(ctx.mappings, owner, repo)
    return route ? routeChannels(route) : []
  })
  const calls = new PQueue({ concurrency: CHECK_CONCURRENCY })
  const reported = (result: CheckResult): CheckResult => {
    onResult(result)
    return result
  }
  const access = calls.add(() => slackAccessCheck(ctx.slack, channels, ctx.featureScopes, ctx.personalScopes)).then((answer) => {
    reported(answer.auth)
    answer.scopes.forEach(reported)
    return answer
  })
  const auth = access.then((answer) => answer.auth)
  const channelChecks = new Map<string, Promise<CheckResult>>()
  const channelCheck = async (target: string, channel: string): Promise<CheckResult> => {
    if (!ctx.slack || (await auth).status === 'FAIL') {
      return reported({ name: 'slack-channel', target, status: 'SKIP', reason: `${channel} not checked: slack-auth failed` })
    }
    const slack = ctx.slack
    let pending = channelChecks.get(channel)
    if (!pending) channelChecks.set(channel, pending = calls.add(() => slackChannelCheck(slack, target, channel)))
    return reported({ ...(await pending), target })
  }

  const entries = await Promise.all(targets.map(async ({ owner, repo }): Promise<EntryReport> => {
    const target = `${owner}/${repo}`
    const { result, route } = mappingCheck(ctx.mappings, owner, repo)
    reported(result)
    if (!route || result.status === 'FAIL') return { owner, repo, results: [result] }
    const [channels, webhooks] = await Promise.all([
      Promise.all(routeChannels(route).map((channel) => channelCheck(target, channel))),
      repo === '*'
        ? wildcardWebhooks(ctx, owner, calls, reported)
        : calls.add(() => webhookCheck(ctx.host, ctx.git, owner, repo)).then((r) => [reported(r)]),
    ])
    const assigned = ctx.assign && route.assign ? await calls.add(() => assignCheck({ host: ctx.host, ...ctx.assign! }, route, target)) : undefined
    if (assigned) reported(assigned)
    return { owner, repo, results: [result, ...channels, ...webhooks, ...(assigned ? [assigned] : [])] }
  }))
  return { ...(await access), entries }
}

/** The webhook check of each repository an owner's `"*"` entry covers, found by listing the owner's repositories. */
async function wildcardWebhooks(ctx: CheckContext, owner: string, calls: PQueue, reported: (r: CheckResult) => CheckResult): Promise<CheckResult[]> {
  const target = `${owner}/*`
  const git = ctx.git
  if (!git) {
    return [reported({ name: 'webhook', target, status: 'SKIP', reason: `${ctx.host.variables.token} is not set; ${owner}'s repositories not listed, webhooks not checked` })]
  }
  let names: string[]
  try {
    names = await calls.add(() => git.listOwnerRepos(owner))
  } catch (error) {
    return [reported(gitHostFailure('webhook', target, error))]
  }
  const ownerKey = Object.keys(ctx.mappings).find((k) => k.toLowerCase() === owner.toLowerCase())
  const ownEntries = new Set(Object.keys(ctx.mappings[ownerKey ?? owner] ?? {}).map((r) => r.toLowerCase()))
  const covered = names.filter((n) => !ownEntries.has(n.toLowerCase()))
  if (covered.length === 0) {
    return [reported({ name: 'webhook', target, status: 'OK', reason: `none of ${owner}'s ${names.length} repositories relies on "*"` })]
  }
  // Through the shared queue: an organisation can have hundreds of repositories, and the host rate-limits.
  return Promise.all(covered.map((name) => calls.add(() => webhookCheck(ctx.host, git, owner, name)).then(reported)))
}
