import type { PullRequestEvent, PullRequestFacts } from '../../machines/pull-request-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { PrheraldError } from '../errors.ts'
import { createHostRateGate, type GateClock } from '../hosts/host-rate-gate.ts'
import type { Logger } from '../log/logger.ts'
import { resolveRoute } from '../routing/resolve-route.ts'
import { followRoutes, routePullRequest, type RouteDecision } from '../routing/route-pull-request.ts'
import { createRouteFacts } from '../worker/gather-route-facts.ts'
import { formatTable } from './format-routes.ts'

export interface ExplainQuestion {
  owner: string
  repo: string
  /** `--provider`, needed when several hosts are configured. */
  provider: string
  into?: string | undefined
  from?: string | undefined
  author?: string | undefined
  labels?: string[] | undefined
  title?: string | undefined
  /** `--files`: the changed files to route by (instead of a real pull request's). */
  files?: string[] | undefined
  /** `--pr`: read this pull request through the host's API (its branches, author, labels and files). */
  pr?: number | undefined
}

const clock: GateClock = { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }

/**
 * `prherald-config explain`: the same routing decision the batch makes, for a pull request described on the
 * command line or read from the host, with the facts gathered the same way (CODEOWNERS, team members).
 */
export async function explainRoute(hosts: HostSet, question: ExplainQuestion, logger: Logger): Promise<RouteDecision & { facts: PullRequestFacts }> {
  const own = hosts.get(question.provider)
  if (!own) throw new PrheraldError('usage', `--provider ${question.provider} is not a configured host`, { fix: `use one of: ${[...hosts.keys()].join(', ')}` })
  let pr: PullRequestFacts = {
    title: question.title ?? '', url: '', author: question.author ?? '', draft: false, state: 'open', createdAt: '', updatedAt: '',
    ...(question.labels ? { labels: question.labels } : {}),
    ...(question.into ? { into: question.into } : {}),
    ...(question.from ? { from: question.from } : {}),
  }
  if (question.pr !== undefined) {
    if (!own.api) throw new PrheraldError('env_missing', `${own.host.variables.token} is not set: --pr reads the pull request from ${own.host.words.name}`, { fix: `set ${own.host.variables.token}, or describe the pull request with --into, --from, --author, --labels and --files` })
    const gate = createHostRateGate({ host: own.host.words.name, limit: (run) => run(), clock, maxWaitMs: 0 })
    pr = await own.api.reconcile(gate, clock).readPullRequest({ owner: question.owner, repo: question.repo, number: question.pr })
  }
  const event: PullRequestEvent = {
    provider: own.id, deliveryId: 'explain', owner: question.owner, repo: question.repo, number: question.pr ?? 0, kind: 'opened', pr,
    actor: { login: pr.author, isBot: false },
  }
  const route = resolveRoute(own.mappings, question.owner, question.repo)
  const follow = followRoutes(own.follow)
  const facts = createRouteFacts({ hosts, logger })
  const files = question.files?.map((path) => ({ path }))
  // Without --pr or --files the changed files are unknown: path and owner rules say so instead of guessing.
  const gathered = question.pr !== undefined || files ? await facts.gather(event, route, follow, files ? { files } : undefined) : { teamMembers: facts.knownMembers(own.id, question.owner) }
  return { ...routePullRequest({ route, follow }, { ...event, ...gathered }), facts: pr }
}

/** The decision as the command prints it: each channel with the rules that sent it, then the rules that did not. */
export function explainLines(question: Pick<ExplainQuestion, 'owner' | 'repo'>, decision: RouteDecision & { facts: PullRequestFacts }): string[] {
  const { facts } = decision
  const lines = [
    `${question.owner}/${question.repo}: into ${facts.into ?? '(unknown)'} from ${facts.from ?? '(unknown)'}, author ${facts.author || '(unknown)'}, labels ${facts.labels?.join(', ') || '-'}`,
  ]
  if (decision.targets.length === 0) lines.push('goes to no channel')
  else {
    lines.push('channels:')
    lines.push(...formatTable(decision.targets.flatMap((t) => t.reasons.map((r, i) => [i === 0 ? `  ${t.channel}` : '', `${r.rule}:`, r.detail]))))
  }
  if (decision.passed.length > 0) {
    lines.push('not sent by:')
    lines.push(...formatTable(decision.passed.map((p) => [`  ${p.rule}:`, p.why])))
  }
  if (decision.fallback) lines.push(`fallback: ${decision.fallback}`)
  return lines
}
