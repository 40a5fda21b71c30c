import { describe, expect, it } from 'vitest'
import { decide, storesWithoutMessage } from '../../machines/decide.ts'
import type { Intent } from '../../machines/pull-request.machine.ts'
import type { EventKind } from '../../machines/pull-request-event.ts'

/** The hosts these cases cover. */
type Provider = 'github' | 'bitbucket'
import { prEvent, run } from './lifecycle-run.ts'

/**
 * Issue 11.1: a pull request that ended before prherald announced it (merged or closed while it was down, or
 * the end delivered before the `opened`) is never announced as open. Times are the hosts' updated_at.
 */
const OPENED_AT = '2026-11-20T09:30:00Z'
const REVIEWED_AT = '2026-11-20T09:45:00Z'
const ENDED_AT = '2026-11-20T10:00:00Z'
const REOPENED_AT = '2026-11-20T11:00:00Z'
const CLOSED_AGAIN_AT = '2026-11-20T12:00:00Z'

const ignoredEnded: Intent[] = [{ type: 'ignore', reason: 'ended_before_announced' }]
const post: Intent = { type: 'post' }

/** The events each host sends, in prherald's names (lifecycle.md's table). */
const HOST_KINDS: Record<Provider, { end: EventKind[]; later: EventKind[] }> = {
  github: {
    end: ['merged', 'closed'],
    later: ['opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'edited', 'approved', 'changes_requested', 'commented', 'review_dismissed', 'merged', 'closed'],
  },
  bitbucket: {
    end: ['merged', 'closed'],
    later: ['opened', 'updated', 'approved', 'changes_requested', 'commented', 'approval_removed', 'changes_request_removed', 'merged', 'closed'],
  },
}
const endState = (kind: EventKind) => (kind === 'merged' ? 'merged' : 'closed')
const cases = (['github', 'bitbucket'] as const).flatMap((provider) => HOST_KINDS[provider].end.map((end) => [provider, end] as const))

describe.each(cases)('%s: %s before the first announcement', (provider, end) => {
  const ended = () => prEvent(end, { provider, state: endState(end), updatedAt: ENDED_AT })

  it('is ignored as ended_before_announced and recorded as ended, with the end time', () => {
    const { stored, intents } = run(ended())
    expect(intents).toEqual(ignoredEnded)
    expect(stored?.state).toBe('ended')
    expect(stored?.context.endedAt).toBe(ENDED_AT)
    expect(stored?.context.reactions).toEqual([])
  })

  it.each(HOST_KINDS[provider].later)('a later-delivered %s from before the end stays silent', (kind) => {
    const stale = prEvent(kind, { provider, updatedAt: kind === 'opened' ? OPENED_AT : REVIEWED_AT, draft: kind === 'converted_to_draft' })
    const { stored, intents } = run(ended(), stale)
    expect(intents).toEqual(ignoredEnded)
    expect(stored?.state).toBe('ended')
    expect(stored?.context.endedAt).toBe(ENDED_AT)
  })

  it('a whole replayed history (opened, reviews, comments) stays silent, event after event', () => {
    const history = [
      prEvent('opened', { provider, updatedAt: OPENED_AT }),
      prEvent('approved', { provider, updatedAt: REVIEWED_AT }),
      prEvent('commented', { provider, actor: 'dave', updatedAt: REVIEWED_AT }),
      prEvent(provider === 'github' ? 'ready_for_review' : 'updated', { provider, updatedAt: REVIEWED_AT }),
    ]
    let stored = run(ended()).stored
    for (const event of history) {
      const result = decide(stored, event)
      expect(result.intents, event.kind).toEqual(ignoredEnded)
      expect(storesWithoutMessage(result)).toBe(true)
      stored = result.next
    }
    expect(stored?.state).toBe('ended')
  })

  it('an event that shows the PR still ended, sent later (a comment after the end), stays silent and moves the end', () => {
    const comment = prEvent('commented', { provider, state: endState(end), updatedAt: REOPENED_AT })
    const { stored, intents } = run(ended(), comment)
    expect(intents).toEqual(ignoredEnded)
    expect(stored?.context.endedAt).toBe(REOPENED_AT)
  })

  it('an event of the PR in its ended state is enough to record the end, when the merge or close itself is lost', () => {
    const { stored, intents } = run(prEvent('commented', { provider, state: endState(end), updatedAt: ENDED_AT }), prEvent('opened', { provider, updatedAt: OPENED_AT }))
    expect(intents).toEqual(ignoredEnded)
    expect(stored?.state).toBe('ended')
  })
})

describe('a reopening after an unannounced end', () => {
  const closed = (updatedAt = ENDED_AT) => prEvent('closed', { state: 'closed', updatedAt })

  it('a reopened sent after the end announces the PR like any open one, and forgets the end', () => {
    const { stored, intents } = run(closed(), prEvent('reopened', { updatedAt: REOPENED_AT }))
    expect(intents).toEqual([post])
    expect(stored?.state).toBe('open')
    expect(stored?.context.endedAt).toBeUndefined()
  })

  it('a stale reopened (sent before the end) stays silent, and so does one sent in the same second as the end', () => {
    expect(run(closed(), prEvent('reopened', { updatedAt: REVIEWED_AT })).intents).toEqual(ignoredEnded)
    expect(run(closed(), prEvent('reopened', { updatedAt: ENDED_AT })).intents).toEqual(ignoredEnded)
  })

  it('after the announcement, the PR follows the ordinary lifecycle', () => {
    const { stored, intents } = run(closed(), prEvent('reopened', { updatedAt: REOPENED_AT }), prEvent('approved', { updatedAt: CLOSED_AGAIN_AT }))
    expect(intents).toEqual([{ type: 'addReaction', reaction: 'approved' }])
    expect(stored?.state).toBe('open')
  })

  it('a reopening as a draft waits like any draft; its ready_for_review announces it', () => {
    const draft = run(closed(), prEvent('reopened', { draft: true, updatedAt: REOPENED_AT }))
    expect(draft.intents).toEqual([{ type: 'ignore', reason: 'draft' }])
    expect(draft.stored?.state).toBe('ended')
    const ready = run(closed(), prEvent('reopened', { draft: true, updatedAt: REOPENED_AT }), prEvent('ready_for_review', { updatedAt: CLOSED_AGAIN_AT }))
    expect(ready.intents).toEqual([post])
    expect(ready.stored?.state).toBe('open')
  })

  it('when the reopened itself is lost, a review sent after it announces the PR (with its reaction)', () => {
    const { stored, intents } = run(closed(), prEvent('approved', { updatedAt: REOPENED_AT }))
    expect(intents).toEqual([post, { type: 'addReaction', reaction: 'approved' }])
    expect(stored?.context.approvedBy).toEqual(['carol'])
  })

  it('Bitbucket (no reopened event): an updated that shows the PR open after the end announces it', () => {
    const rejected = prEvent('closed', { provider: 'bitbucket', state: 'closed', updatedAt: ENDED_AT })
    expect(run(rejected, prEvent('updated', { provider: 'bitbucket', updatedAt: REOPENED_AT })).intents).toEqual([post])
    expect(run(rejected, prEvent('updated', { provider: 'bitbucket', updatedAt: REVIEWED_AT })).intents).toEqual(ignoredEnded)
  })

  it('two closes: a reopened from between them stays silent, whichever close arrives first', () => {
    const between = prEvent('reopened', { updatedAt: REOPENED_AT })
    const late = closed(CLOSED_AGAIN_AT)
    for (const order of [[closed(), late], [late, closed()]]) {
      const { stored, intents } = run(...order, between)
      expect(intents).toEqual(ignoredEnded)
      expect(stored?.context.endedAt).toBe(CLOSED_AGAIN_AT)
    }
  })

  it('a merged PR is never reopened: a reopened before the merge stays silent', () => {
    const merged = prEvent('merged', { state: 'merged', updatedAt: ENDED_AT })
    expect(run(merged, prEvent('reopened', { updatedAt: REVIEWED_AT })).intents).toEqual(ignoredEnded)
  })

  it('an event without a readable time (recorded by an older release) stays silent, and never erases a readable end', () => {
    expect(run(closed(), prEvent('reopened', { updatedAt: 'not a time' })).intents).toEqual(ignoredEnded)
    const { stored } = run(closed(), prEvent('closed', { state: 'closed', updatedAt: 'not a time' }))
    expect(stored?.context.endedAt).toBe(ENDED_AT)
    const unknownEnd = run(prEvent('closed', { state: 'closed', updatedAt: 'not a time' }), closed())
    expect(unknownEnd.stored?.context.endedAt).toBe(ENDED_AT)
  })
})

describe("decide()'s contract for an unannounced end", () => {
  it('an ignore with next.state ended means: store next without a message', () => {
    const result = decide(undefined, prEvent('merged', { state: 'merged', updatedAt: ENDED_AT }))
    expect(result.intents).toEqual(ignoredEnded)
    expect(result.next).toMatchObject({ state: 'ended', context: { endedAt: ENDED_AT, number: 7 } })
    expect(storesWithoutMessage(result)).toBe(true)
  })

  it('an ignore stays an ignore for the stored ended row too: the caller stores the (maybe later) end again', () => {
    const stored = decide(undefined, prEvent('closed', { state: 'closed', updatedAt: ENDED_AT })).next
    const result = decide(stored, prEvent('closed', { state: 'closed', updatedAt: CLOSED_AGAIN_AT }))
    expect(storesWithoutMessage(result)).toBe(true)
    expect(result.next.context.endedAt).toBe(CLOSED_AGAIN_AT)
  })

  it('other ignores store nothing: draft, no_stored_message, and any ignore of a PR with a message', () => {
    expect(storesWithoutMessage(decide(undefined, prEvent('opened', { draft: true })))).toBe(false)
    expect(storesWithoutMessage(decide(undefined, prEvent('edited')))).toBe(false)
    const open = run(prEvent('opened')).stored
    expect(storesWithoutMessage(decide(open, prEvent('updated')))).toBe(false)
  })

  it('a post out of ended is an ordinary result: next is open, with the post intent', () => {
    const stored = decide(undefined, prEvent('closed', { state: 'closed', updatedAt: ENDED_AT })).next
    const result = decide(stored, prEvent('reopened', { updatedAt: REOPENED_AT }))
    expect(result.intents).toEqual([post])
    expect(storesWithoutMessage(result)).toBe(false)
  })
})
