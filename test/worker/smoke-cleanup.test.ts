import { describe, expect, it } from 'vitest'
import { decodeBitbucket } from '../../src/hosts/bitbucket/decode.ts'
import { decodeGithub } from '../../src/hosts/github/decode.ts'
import { isIgnored, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { MessagePlan } from '../../src/worker/plan-changes.ts'
import { planSmokeCleanup } from '../../src/worker/smoke-cleanup.ts'
import { smokeDelivery, type SmokeRun, type SmokeStep } from '../../src/smoke/smoke-deliveries.ts'
import { githubExample } from '../helpers/github-examples.ts'

/** The planner's smoke-test step, over events decoded from prherald-smoke's own deliveries. */
const run = (provider: SmokeRun['provider']): SmokeRun => ({ provider, owner: 'acme', repo: 'api', runId: 'a1b2c3d4', createdAt: '2026-11-23T10:00:00Z' })

function decoded(provider: SmokeRun['provider'], step: SmokeStep): PullRequestEvent {
  const { headers, body } = smokeDelivery(run(provider), step, 'secret')
  const result = provider === 'github'
    ? decodeGithub(headers['x-github-event']!, 'd1', JSON.parse(body))
    : decodeBitbucket(headers['x-event-key']!, 'd1', JSON.parse(body))
  if (isIgnored(result)) throw new Error(`smoke ${step} decoded as ignored: ${result.reason}`)
  return result
}

const plans: MessagePlan[] = [
  { channel: 'C1', mentions: [], ts: '1.1', reactions: [], changes: [{ type: 'update', message: { text: 't', blocks: [] } }, { type: 'addReaction', name: 'x' }] },
  { channel: 'C2', mentions: [], ts: undefined, reactions: [], changes: [{ type: 'post', message: { text: 't', blocks: [] } }] },
]

describe('smoke-test deliveries decode', () => {
  it.each(['github', 'bitbucket'] as const)('%s: every step is a pull request numbered 0 with the smoke title', (provider) => {
    const kinds = (['opened', 'approved', 'merged', 'closed'] as const).map((step) => decoded(provider, step))
    expect(kinds.map((e) => e.kind)).toEqual(['opened', 'approved', 'merged', 'closed'])
    for (const e of kinds) {
      expect(e.number).toBe(0)
      expect(e.pr.title).toBe('prherald smoke test a1b2c3d4')
    }
  })

  it('a real payload numbered 0 without the smoke title stays invalid', () => {
    const payload = githubExample('pull_request', 'opened') as { pull_request: { number: number } }
    payload.pull_request.number = 0
    expect(decodeGithub('pull_request', 'd1', payload)).toMatchObject({ ignored: true, reason: 'invalid_payload' })
  })
})

describe('planSmokeCleanup', () => {
  it("a smoke test's closed deletes every posted message and announces nothing", () => {
    expect(planSmokeCleanup([decoded('github', 'closed')], plans)).toEqual([
      { channel: 'C1', mentions: [], ts: '1.1', reactions: [], changes: [{ type: 'delete' }] },
    ])
  })

  it('the closed may come in a batch after other deliveries', () => {
    expect(planSmokeCleanup([decoded('bitbucket', 'merged'), decoded('bitbucket', 'closed')], plans)).toHaveLength(1)
  })

  it("a smoke test's earlier deliveries are planned like any pull request's", () => {
    for (const step of ['opened', 'approved', 'merged'] as const) expect(planSmokeCleanup([decoded('github', step)], plans)).toBe(plans)
  })

  it('a real pull request closing is planned as usual', () => {
    const closed = { ...decoded('github', 'closed'), number: 7, pr: { ...decoded('github', 'closed').pr, title: 'Add limits' } }
    expect(planSmokeCleanup([closed], plans)).toBe(plans)
  })
})
