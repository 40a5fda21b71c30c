import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import { foldEvents } from '../../machines/fold-events.ts'
import { initialContext } from '../../machines/pull-request.machine.ts'
import type { PullRequestEvent, PullRequestFacts } from '../../machines/pull-request-event.ts'
import { differenceOf, reconcileEvent } from '../../src/reconcile/reconcile-difference.ts'

/** The pure half of reconcile: the difference, and that the machine takes its synthetic event to the real state. */
const facts = (over: Partial<PullRequestFacts> = {}): PullRequestFacts => ({
  title: 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'alice', draft: false, state: 'open',
  createdAt: '2026-11-20T09:00:00Z', updatedAt: '2026-11-23T09:00:00Z', ...over,
})
const ref = { provider: 'github', repository: 'acme/api', prNumber: 7 } as const
const opened: PullRequestEvent = { provider: 'github', deliveryId: 'd-1', owner: 'acme', repo: 'api', number: 7, kind: 'opened', pr: facts(), actor: { login: 'alice', isBot: false } }
const shown = (state: 'open' | 'draft', title = 'Add limits'): StoredLifecycle => ({
  state, context: { ...initialContext(opened), title, reactions: state === 'draft' ? ['draft'] : [] },
})

describe('differenceOf', () => {
  it.each([
    ['open', facts({ state: 'merged' }), ['merged'], 'merged', 'merged', ['merged']],
    ['draft', facts({ state: 'merged', draft: true }), ['merged'], 'merged', 'merged', ['draft', 'merged']],
    ['open', facts({ state: 'closed', title: 'Renamed' }), ['closed', 'title'], 'closed', 'closed', ['closed']],
    ['open', facts({ draft: true }), ['draft'], 'converted_to_draft', 'draft', ['draft']],
    ['draft', facts(), ['ready'], 'ready_for_review', 'open', []],
    ['draft', facts({ draft: true, title: 'Renamed' }), ['title'], 'edited', 'draft', ['draft']],
    ['open', facts({ title: 'Renamed' }), ['title'], 'edited', 'open', []],
  ] as const)('%s, host says %j: %j by %s, and the machine ends %s', (state, real, changes, kind, end, reactions) => {
    const stored = shown(state)
    const difference = differenceOf(stored, real)
    expect(difference).toEqual({ changes, kind })
    const folded = foldEvents(stored, [reconcileEvent(ref, difference!, real, 'reconcile-1')])
    expect(folded.changed).toBe(true)
    expect(folded.next).toMatchObject({ state: end, context: { title: real.title, reactions } })
  })

  it('splits a nested owner at the last slash: the repository never holds one', () => {
    const nested = reconcileEvent({ provider: 'github', repository: 'platform/backend/api', prNumber: 7 }, { changes: ['merged'], kind: 'merged' }, facts({ state: 'merged' }), 'reconcile-2')
    expect(nested).toMatchObject({ owner: 'platform/backend', repo: 'api', number: 7 })
  })

  it('finds nothing when the message is right', () => {
    expect(differenceOf(shown('open'), facts())).toBeUndefined()
    expect(differenceOf(shown('draft'), facts({ draft: true }))).toBeUndefined()
  })
})
