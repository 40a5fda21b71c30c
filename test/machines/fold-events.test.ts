import { describe, expect, it } from 'vitest'
import { decide, storesWithoutMessage, type StoredLifecycle } from '../../machines/decide.ts'
import { foldEvents } from '../../machines/fold-events.ts'
import type { EventKind, PullRequestEvent } from '../../machines/pull-request-event.ts'

let sequence = 0
function event(kind: EventKind, facts: { draft?: boolean; actor?: string; title?: string; provider?: 'github' | 'bitbucket' } = {}): PullRequestEvent {
  sequence++
  return {
    provider: facts.provider ?? 'github', deliveryId: `d-${sequence}`, owner: 'acme', repo: 'api', number: 7, kind,
    pr: { title: facts.title ?? 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'bob', draft: facts.draft ?? false, state: kind === 'merged' ? 'merged' : kind === 'closed' ? 'closed' : 'open', createdAt: '2026-11-20T09:30:00Z', updatedAt: new Date(Date.UTC(2026, 10, 20, 10) + sequence * 60_000).toISOString() },
    actor: { login: facts.actor ?? 'carol', isBot: false },
  } as PullRequestEvent
}

/** Whether applying `events` one by one from `stored` would post the pull request's first message. */
function postsInBatch(stored: StoredLifecycle | undefined, events: PullRequestEvent[]): boolean {
  let current = stored
  for (const e of events) {
    const decision = decide(current, e)
    if (decision.intents.some((i) => i.type === 'post')) return true
    if (!decision.intents.some((i) => i.type === 'ignore') || storesWithoutMessage(decision)) current = decision.next
  }
  return false
}

/** What the worker did before folding existed: one decide() per delivery, skipping ignored ones (but an end recorded without a message). */
function oneByOne(stored: StoredLifecycle | undefined, events: PullRequestEvent[]): StoredLifecycle | undefined {
  let current = stored
  for (const e of events) {
    const decision = decide(current, e)
    if (!decision.intents.some((i) => i.type === 'ignore') || storesWithoutMessage(decision)) current = decision.next
  }
  return current
}

describe('foldEvents', () => {
  it('a pull request announced and ended within one batch is not announced: the end is kept, every delivery is ignored', () => {
    const folded = foldEvents(undefined, [event('opened'), event('approved'), event('merged')])
    expect(folded.changed).toBe(false)
    expect(folded.announcedBy).toBeUndefined()
    expect(folded.next?.state).toBe('ended')
    expect(folded.next?.context.endedAt).toBeDefined()
    expect(folded.steps.map((s) => s.ignored)).toEqual(['ended_before_announced', 'ended_before_announced', 'ended_before_announced'])
    // Reopened within the same batch: it is open when the batch is applied, so it is announced.
    expect(foldEvents(undefined, [event('opened'), event('closed'), event('reopened')]).announcedBy).toBeDefined()
  })

  it('with a message already shown (an adopted post of unknown outcome), the same batch ends that message instead', () => {
    const folded = foldEvents(undefined, [event('opened'), event('approved'), event('merged')], { messageShown: true })
    expect(folded.changed).toBe(true)
    expect(folded.next?.state).toBe('merged')
    expect(folded.steps.map((s) => s.ignored)).toEqual([undefined, undefined, undefined])
  })

  it('folds an announcement and its reviews into one final state, announced by the first event that posts', () => {
    const opened = event('opened')
    const folded = foldEvents(undefined, [opened, event('approved'), event('commented', { actor: 'dave' })])
    expect(folded.changed).toBe(true)
    expect(folded.announcedBy).toBe(opened)
    expect(folded.next?.state).toBe('open')
    expect(folded.next?.context.approvedBy).toEqual(['carol'])
    expect(folded.next?.context.commentCount).toBe(1)
    expect(folded.next?.context.reactions).toEqual(['approved', 'commented'])
    expect(folded.steps.map((s) => s.ignored)).toEqual([undefined, undefined, undefined])
  })

  it('a reaction added then taken back within the batch is not in the final state', () => {
    const start = foldEvents(undefined, [event('opened', { provider: 'bitbucket' })]).next
    const folded = foldEvents(start, [event('approved', { provider: 'bitbucket' }), event('approval_removed', { provider: 'bitbucket' })])
    expect(folded.changed).toBe(true)
    expect(folded.announcedBy).toBeUndefined()
    expect(folded.next?.context.reactions).toEqual([])
  })

  it('a batch of ignored events changes nothing and has nothing to store', () => {
    const folded = foldEvents(undefined, [event('opened', { draft: true }), event('converted_to_draft', { draft: true })])
    expect(folded.changed).toBe(false)
    expect(folded.next).toBeUndefined()
    expect(folded.steps.map((s) => s.ignored)).toEqual(['draft', 'draft'])
  })

  it('an ignored event in the middle leaves the state as it was, and the rest still apply', () => {
    const folded = foldEvents(undefined, [event('edited'), event('opened'), event('approved')])
    expect(folded.steps[0]?.ignored).toBe('no_stored_message')
    expect(folded.steps[0]?.after).toBeUndefined()
    expect(folded.next?.context.approvedBy).toEqual(['carol'])
  })

  it('a merge before the opened is recorded as ended, and the batch announces nothing (issue 11.1)', () => {
    const merged = { ...event('merged'), pr: { ...event('merged').pr, updatedAt: '2026-12-01T10:00:00Z' } }
    const folded = foldEvents(undefined, [merged, event('opened'), event('approved')])
    expect(folded.steps.map((s) => s.ignored)).toEqual(['ended_before_announced', 'ended_before_announced', 'ended_before_announced'])
    expect(folded.changed).toBe(false)
    expect(folded.announcedBy).toBeUndefined()
    expect(folded.next).toMatchObject({ state: 'ended', context: { endedAt: '2026-12-01T10:00:00Z', approvedBy: [] } })
  })

  it('ends where applying the deliveries one by one ends, for every prefix of a long history', () => {
    const history = [
      event('opened', { draft: true }), event('commented', { actor: 'erin' }), event('ready_for_review'), event('approved'),
      event('changes_requested', { actor: 'dave' }), event('edited', { title: 'Add rate limits' }), event('review_dismissed', { actor: 'dave' }),
      event('converted_to_draft', { draft: true }), event('ready_for_review'), event('closed'), event('reopened'), event('merged'), event('closed'),
    ]
    for (let cut = 1; cut <= history.length; cut++) {
      const head = history.slice(0, cut)
      for (let split = 0; split <= head.length; split++) {
        // A first batch, stored as JSON the way the worker stores it, then a second batch on top of it.
        const first = foldEvents(undefined, head.slice(0, split)).next
        const stored = first ? (JSON.parse(JSON.stringify(first)) as StoredLifecycle) : undefined
        const second = head.slice(split)
        const folded = foldEvents(stored, second).next
        const reference = oneByOne(stored, second)
        if (postsInBatch(stored, second) && (reference?.state === 'merged' || reference?.state === 'closed')) {
          // Announced and ended within one batch: nothing is posted, the end is kept without a message.
          expect(folded?.state).toBe('ended')
        } else {
          expect(folded).toEqual(reference)
        }
      }
    }
  })
})
