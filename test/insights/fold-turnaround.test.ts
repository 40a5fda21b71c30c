import { describe, expect, it } from 'vitest'
import type { EventKind, PullRequestEvent } from '../../machines/pull-request-event.ts'
import { foldTurnaround } from '../../src/insights/fold-turnaround.ts'

const ref = { provider: 'github', repository: 'acme/api', prNumber: 7 }
let sequence = 0
function event(kind: EventKind, updatedAt: string, facts: { actor?: string; draft?: boolean; bot?: boolean; submitted?: boolean } = {}): PullRequestEvent {
  sequence++
  return {
    provider: 'github', deliveryId: `d-${sequence}`, owner: 'acme', repo: 'api', number: 7, kind,
    pr: {
      title: 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'bob', draft: facts.draft ?? false, state: kind === 'merged' ? 'merged' : 'open',
      createdAt: '2026-12-04T09:00:00Z', updatedAt, requestedReviewers: [{ type: 'team', slug: 'backend', name: 'Backend' }],
    },
    actor: { login: facts.actor ?? 'bob', isBot: facts.bot ?? false },
    ...(facts.submitted ? { submittedReview: true as const } : {}),
  }
}
const ms = (iso: string) => Date.parse(iso)

describe('foldTurnaround', () => {
  it('keeps the first time of each moment and each review by someone other than the author', () => {
    const row = foldTurnaround(ref, undefined, [
      event('opened', '2026-12-04T09:00:00Z', { draft: true }),
      event('commented', '2026-12-04T09:30:00Z', { actor: 'bob', submitted: true }), // the author: no review
      event('ready_for_review', '2026-12-04T10:00:00Z'),
      event('commented', '2026-12-04T10:30:00Z', { actor: 'carol' }), // a bare comment: no review
      event('approved', '2026-12-04T11:00:00Z', { actor: 'renovate[bot]', bot: true }), // a bot: no review
      event('changes_requested', '2026-12-04T12:00:00Z', { actor: 'carol' }),
      event('approved', '2026-12-04T13:00:00Z', { actor: 'Dave' }),
      event('merged', '2026-12-04T14:00:00Z', { actor: 'erin' }),
    ], 'acme/api', ms('2026-12-05T00:00:00Z'))
    expect(row).toEqual({
      ...ref, entry: 'acme/api', author: 'bob', openedAt: ms('2026-12-04T09:00:00Z'), readyAt: ms('2026-12-04T10:00:00Z'),
      firstReviewAt: ms('2026-12-04T12:00:00Z'), firstApprovalAt: ms('2026-12-04T13:00:00Z'), mergedAt: ms('2026-12-04T14:00:00Z'), closedAt: null,
      mergedBy: 'erin', reviews: [{ login: 'carol', at: ms('2026-12-04T12:00:00Z') }, { login: 'Dave', at: ms('2026-12-04T13:00:00Z') }], teams: ['backend'],
    })
  })

  it('a replayed or late delivery moves nothing later and counts no review twice', () => {
    const first = foldTurnaround(ref, undefined, [event('opened', '2026-12-04T09:00:00Z'), event('approved', '2026-12-04T11:00:00Z', { actor: 'carol' })], 'acme/api', 0)
    const again = foldTurnaround(ref, first, [event('approved', '2026-12-04T11:00:00Z', { actor: 'carol' }), event('approved', '2026-12-04T15:00:00Z', { actor: 'dave' })], 'acme/api', 0)
    expect(again.readyAt).toBe(ms('2026-12-04T09:00:00Z'))
    expect(again.firstApprovalAt).toBe(ms('2026-12-04T11:00:00Z'))
    expect(again.reviews.map((r) => r.login)).toEqual(['carol', 'dave'])
    // The stored row is not changed in place.
    expect(first.reviews).toHaveLength(1)
  })
})
