import { describe, expect, it } from 'vitest'
import { foldEvents } from '../../machines/fold-events.ts'
import { reviewPings } from '../../machines/review-pings.ts'
import type { EventKind, PullRequestEvent, Reviewer } from '../../machines/pull-request-event.ts'

let sequence = 0
function event(kind: EventKind, extra: { reviewer?: Reviewer; listed?: Reviewer[]; actor?: string } = {}): PullRequestEvent {
  sequence++
  return {
    provider: 'github', deliveryId: `d-${sequence}`, owner: 'acme', repo: 'api', number: 7, kind,
    pr: {
      title: 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'bob', draft: false, state: 'open', createdAt: '2026-11-20T09:30:00Z',
      updatedAt: new Date(Date.UTC(2026, 10, 20, 10) + sequence * 60_000).toISOString(), ...(extra.listed ? { requestedReviewers: extra.listed } : {}),
    },
    actor: { login: extra.actor ?? 'bob', isBot: false },
    ...(extra.reviewer ? { reviewer: extra.reviewer } : {}),
  }
}

const dave: Reviewer = { type: 'user', login: 'dave' }
const backend: Reviewer = { type: 'team', slug: 'backend', name: 'Backend' }
const pings = (before: PullRequestEvent[], batch: PullRequestEvent[]) => {
  const stored = before.length > 0 ? foldEvents(undefined, before).next : undefined
  return reviewPings(stored, foldEvents(stored, batch).steps)
}

describe('reviewPings', () => {
  it('names each reviewer newly waited on, keyed by delivery and reviewer', () => {
    // Built in host-time order: each event's updated_at is later than the one before.
    const opened = event('opened', { listed: [] })
    const ask = event('review_requested', { reviewer: dave, listed: [dave] })
    const askTeam = event('review_requested', { reviewer: backend, listed: [dave, backend] })
    expect(pings([opened], [ask, askTeam])).toEqual([
      { reviewer: dave, replyKey: `${ask.deliveryId}:review_requested:user:dave` },
      { reviewer: backend, replyKey: `${askTeam.deliveryId}:review_requested:team:backend` },
    ])
  })

  it('names nobody for a request of someone already waited on, or at the announcement', () => {
    expect(pings([event('opened', { listed: [dave] })], [event('review_requested', { reviewer: dave, listed: [dave] })])).toEqual([])
    expect(pings([], [event('opened', { listed: [dave] })])).toEqual([])
  })

  it('names a reviewer again once they reviewed and are asked again', () => {
    const before = [event('opened', { listed: [dave] }), event('approved', { actor: 'dave', listed: [] })]
    const again = event('review_requested', { reviewer: dave, listed: [dave] })
    const result = pings(before, [again])
    expect(result.map((p) => p.replyKey)).toEqual([`${again.deliveryId}:review_requested:user:dave`])
  })
})
