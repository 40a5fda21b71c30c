import { describe, expect, it } from 'vitest'
import { foldEvents } from '../../machines/fold-events.ts'
import { threadEvents } from '../../machines/thread-events.ts'
import type { EventKind, PullRequestEvent } from '../../machines/pull-request-event.ts'

let sequence = 0
function event(kind: EventKind, facts: { draft?: boolean; actor?: string } = {}): PullRequestEvent {
  sequence++
  return {
    provider: 'github', deliveryId: `d-${sequence}`, owner: 'acme', repo: 'api', number: 7, kind,
    pr: {
      title: 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'bob', draft: facts.draft ?? false,
      state: kind === 'merged' ? 'merged' : kind === 'closed' ? 'closed' : 'open', createdAt: '2026-11-20T09:30:00Z',
      updatedAt: new Date(Date.UTC(2026, 10, 20, 10) + sequence * 60_000).toISOString(),
    },
    actor: { login: facts.actor ?? 'carol', isBot: false },
  }
}

/** The thread events of `events` folded from what `before` (events already applied) left. */
function notes(before: PullRequestEvent[], events: PullRequestEvent[]) {
  const stored = before.length > 0 ? foldEvents(undefined, before).next : undefined
  return threadEvents(stored, foldEvents(stored, events).steps).map((e) => [e.kind, e.actor])
}

describe('threadEvents', () => {
  it('gives one event per change in a folded batch, in arrival order, with a key per delivery and kind', () => {
    const opened = event('opened')
    const batch = [event('approved', { actor: 'carol' }), event('changes_requested', { actor: 'dave' }), event('converted_to_draft', { actor: 'bob', draft: true }), event('merged', { actor: 'erin' })]
    const stored = foldEvents(undefined, [opened]).next
    const events = threadEvents(stored, foldEvents(stored, batch).steps)
    expect(events.map((e) => [e.kind, e.actor])).toEqual([['approved', 'carol'], ['changes_requested', 'dave'], ['back_to_draft', 'bob'], ['merged', 'erin']])
    expect(events.map((e) => e.replyKey)).toEqual(batch.map((b, i) => `${b.deliveryId}:${events[i]!.kind}`))
    expect(events.every((e) => e.author === 'bob')).toBe(true)
  })

  it('gives nothing for events that change nothing the message says', () => {
    expect(notes([event('opened'), event('approved', { actor: 'carol' })], [event('approved', { actor: 'carol' })])).toEqual([])
    expect(notes([event('opened')], [event('commented'), event('edited')])).toEqual([])
    expect(notes([event('opened'), event('merged')], [event('closed')])).toEqual([]) // a merge cannot be undone
    expect(notes([event('opened')], [event('review_dismissed', { actor: 'carol' })])).toEqual([]) // nothing to dismiss
  })

  it('tells dismissals, Bitbucket withdrawals, closing and reopening', () => {
    expect(notes([event('opened'), event('approved', { actor: 'carol' })], [event('review_dismissed', { actor: 'carol' })])).toEqual([['review_dismissed', 'carol']])
    expect(notes([event('opened'), event('approved', { actor: 'carol' })], [event('approval_removed', { actor: 'carol' })])).toEqual([['approval_removed', 'carol']])
    expect(notes([event('opened'), event('changes_requested', { actor: 'dave' })], [event('changes_request_removed', { actor: 'dave' })])).toEqual([['changes_request_removed', 'dave']])
    expect(notes([event('opened')], [event('closed', { actor: 'bob' }), event('reopened', { actor: 'bob' })])).toEqual([['closed', 'bob'], ['reopened', 'bob']])
  })

  it('gives nothing up to the announcement (the message tells it), and everything after it in the same batch', () => {
    expect(notes([], [event('approved', { actor: 'carol' })])).toEqual([])
    expect(notes([], [event('opened'), event('approved', { actor: 'carol' }), event('changes_requested', { actor: 'dave' })])).toEqual([['approved', 'carol'], ['changes_requested', 'dave']])
    expect(notes([], [event('opened', { draft: true }), event('approved', { actor: 'carol' })])).toEqual([])
    // Announced and merged in one batch: never announced, so no thread either.
    expect(notes([], [event('opened'), event('approved'), event('merged')])).toEqual([])
  })

  it('the same batch replayed gives the same keys', () => {
    const stored = foldEvents(undefined, [event('opened')]).next
    const batch = [event('approved'), event('merged')]
    const keys = () => threadEvents(stored, foldEvents(stored, batch).steps).map((e) => e.replyKey)
    expect(keys()).toEqual(keys())
    expect(new Set(keys()).size).toBe(2)
  })
})
