import type { Mappings } from '../config/schema.ts'
import type { Provider } from '../decode/pull-request-event.ts'
import type { WebhookApi } from '../git-host/webhooks.ts'
import type { CheckResult } from './check-result.ts'
import { mappingCheck } from './mapping-check.ts'
import { routeChannels } from '../routing/resolve-route.ts'
import type { SlackCheckOptions } from './slack-api.ts'
import { slackAuthCheck } from './slack-auth-check.ts'
import { slackChannelCheck } from './slack-channel-check.ts'
import { gitHostFailure, TOKEN_VARIABLE, webhookCheck } from './webhook-check.ts'

export interface CheckContext {
  provider: Provider
  mappings: Mappings
  /** undefined when SLACK_BOT_TOKEN is not set: slack-auth then FAILs. */
  slack: SlackCheckOptions | undefined
  /** undefined when the provider's token is not set: webhook checks then SKIP. */
  git: WebhookApi | undefined
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
  entries: EntryReport[]
}

/** Runs `run` over `items` with at most `limit` in flight; results keep the input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await run(items[i]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/**
 * Every check of every target: mapping, slack-channel for each channel the entry can post to (path rules'
 * channels included), and webhook, which for an owner's `"*"` entry means every repository of that owner
 * without an entry of its own. conversations.info is asked once per channel per run.
 */
export async function validateEntries(ctx: CheckContext, targets: readonly EntryTarget[]): Promise<ValidationReport> {
  if (targets.length === 0) return { auth: undefined, entries: [] }
  const channels = targets.flatMap(({ owner, repo }) => {
    const { route } = mappingCheck(ctx.mappings, owner, repo)
    return route ? routeChannels(route) : []
  })
  const auth = await slackAuthCheck(ctx.slack, channels)
  const channelChecks = new Map<string, Promise<CheckResult>>()
  const channelCheck = (target: string, channel: string): Promise<CheckResult> => {
    if (!ctx.slack || auth.status === 'FAIL') {
      return Promise.resolve({ name: 'slack-channel', target, status: 'SKIP', reason: `${channel} not checked: slack-auth failed` })
    }
    let pending = channelChecks.get(channel)
    if (!pending) channelChecks.set(channel, pending = slackChannelCheck(ctx.slack, target, channel))
    return pending.then((r) => ({ ...r, target }))
  }

  const entries: EntryReport[] = []
  for (const { owner, repo } of targets) {
    const target = `${owner}/${repo}`
    const { result, route } = mappingCheck(ctx.mappings, owner, repo)
    const results = [result]
    if (route && result.status !== 'FAIL') {
      for (const channel of routeChannels(route)) results.push(await channelCheck(target, channel))
      results.push(...(repo === '*' ? await wildcardWebhooks(ctx, owner) : [await webhookCheck(ctx.provider, ctx.git, owner, repo)]))
    }
    entries.push({ owner, repo, results })
  }
  return { auth, entries }
}

/** The webhook check of each repository an owner's `"*"` entry covers, found by listing the owner's repositories. */
async function wildcardWebhooks(ctx: CheckContext, owner: string): Promise<CheckResult[]> {
  const target = `${owner}/*`
  if (!ctx.git) {
    return [{ name: 'webhook', target, status: 'SKIP', reason: `${TOKEN_VARIABLE[ctx.provider]} is not set; ${owner}'s repositories not listed, webhooks not checked` }]
  }
  let names: string[]
  try {
    names = await ctx.git.listOwnerRepos(owner)
  } catch (error) {
    return [gitHostFailure('webhook', target, error)]
  }
  const ownerKey = Object.keys(ctx.mappings).find((k) => k.toLowerCase() === owner.toLowerCase())
  const ownEntries = new Set(Object.keys(ctx.mappings[ownerKey ?? owner] ?? {}).map((r) => r.toLowerCase()))
  const covered = names.filter((n) => !ownEntries.has(n.toLowerCase()))
  if (covered.length === 0) {
    return [{ name: 'webhook', target, status: 'OK', reason: `none of ${owner}'s ${names.length} repositories relies on "*"` }]
  }
  // A few at a time: an organisation can have hundreds of repositories, and the host rate-limits.
  return mapLimit(covered, 4, (name) => webhookCheck(ctx.provider, ctx.git, owner, name))
}
