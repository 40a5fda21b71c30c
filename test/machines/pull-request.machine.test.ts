import fc from 'fast-check'
import { initialTransition, transition } from 'xstate'
import { describe, expect, it } from 'vitest'
import { decide, storesWithoutMessage, type StoredLifecycle } from '../../machines/decide.ts'
import { prEvent, run, type Effect } from './lifecycle-run.ts'
import { initialContext, pullRequestMachine, toMachineEvent, type Intent, type ReactionKey } from '../../machines/pull-request.machine.ts'
import type { EventKind, PullRequestFacts } from '../../machines/pull-request-event.ts'

const opened = () => prEvent('opened')
const asDraft = () => [opened(), prEvent('converted_to_draft', { draft: true })]
const add = (reaction: ReactionKey): Effect => ({ type: 'addReaction', reaction })
const remove = (reaction: ReactionKey): Effect => ({ type: 'removeReaction', reaction })
const post: Intent = { type: 'post' }

describe('opened / reopened / ready_for_review of a ready PR', () => {
  it.each(['opened', 'reopened', 'ready_for_review'] as const)('%s without a message posts and moves to open', (kind) => {
    const { stored, intents } = run(prEvent(kind))
    expect(intents).toEqual([post])
    expect(stored?.state).toBe('open')
    expect(stored?.context).toMatchObject({ provider: 'github', owner: 'acme', repo: 'api', number: 7, title: 'Add limits', reactions: [] })
  })

  it("keeps the host's reference from the announcement; events without one (a check result, say) leave it", () => {
    const { stored } = run({ ...opened(), reference: 'MR !7' }, prEvent('approved'))
    expect(stored?.context.reference).toBe('MR !7')
    // A host that gives none stores none: the message says PR #7, as every stored message did before.
    expect(run(opened()).stored?.context).not.toHaveProperty('reference')
  })

  it('keeps the author once known; a delivery that names none leaves it, the first that names one fills it in', () => {
    const unnamed = (kind: EventKind) => { const e = prEvent(kind); return { ...e, pr: { ...e.pr, author: '' } } }
    expect(run(opened(), unnamed('approved')).stored?.context.author).toBe('bob')
    expect(run(unnamed('approved')).stored?.context.author).toBe('')
    expect(run(unnamed('approved'), prEvent('commented')).stored?.context.author).toBe('bob')
  })

  it.each(['opened', 'reopened', 'ready_for_review'] as const)('%s of an open message updates it', (kind) => {
    const { stored, intents } = run(opened(), prEvent(kind, { title: 'Renamed' }))
    expect(intents).toEqual([])
    expect(stored?.state).toBe('open')
    expect(stored?.context.title).toBe('Renamed')
  })

  it.each(['opened', 'ready_for_review'] as const)('%s of a draft message moves it to open and removes the draft reaction', (kind) => {
    const { stored, intents } = run(...asDraft(), prEvent(kind))
    expect(intents).toEqual([remove('draft')])
    expect(stored?.state).toBe('open')
  })

  it('reopened of a closed message moves it to open and removes the closed reaction', () => {
    const { stored, intents } = run(opened(), prEvent('closed', { state: 'closed' }), prEvent('reopened'))
    expect(intents).toEqual([remove('closed')])
    expect(stored?.state).toBe('open')
  })

  it('reopened of a closed draft goes back to draft', () => {
    const { stored, intents } = run(opened(), prEvent('closed', { state: 'closed' }), prEvent('reopened', { draft: true }))
    expect(intents).toEqual([add('draft'), remove('closed')])
    expect(stored?.state).toBe('draft')
  })

  it('reopened of a merged message only updates: a merge is final', () => {
    const { stored, intents } = run(opened(), prEvent('merged', { state: 'merged' }), prEvent('reopened'))
    expect(intents).toEqual([])
    expect(stored?.state).toBe('merged')
  })

  it('an event of an ended PR without a message is not announced, and records the end', () => {
    const { stored, intents } = run(prEvent('reopened', { state: 'closed' }))
    expect(intents).toEqual([{ type: 'ignore', reason: 'ended_before_announced' }])
    expect(stored?.state).toBe('ended')
  })
})

describe('drafts', () => {
  it.each(['opened', 'converted_to_draft', 'updated', 'reopened'] as const)('%s of a draft without a message is ignored (draft)', (kind) => {
    const { stored, intents } = run(prEvent(kind, { draft: true }))
    expect(intents).toEqual([{ type: 'ignore', reason: 'draft' }])
    expect(stored).toBeUndefined()
  })

  it('opened as draft with a message moves to draft', () => {
    const { stored, intents } = run(opened(), prEvent('opened', { draft: true }))
    expect(intents).toEqual([add('draft')])
    expect(stored?.state).toBe('draft')
  })

  it('converted_to_draft moves an open message to draft; again only updates', () => {
    const first = run(...asDraft())
    expect(first.intents).toEqual([add('draft')])
    expect(first.stored?.state).toBe('draft')
    expect(run(...asDraft(), prEvent('converted_to_draft', { draft: true })).intents).toEqual([])
  })

  it('any event follows the draft flag it carries, e.g. a review of a PR that became a draft', () => {
    const { stored, intents } = run(opened(), prEvent('commented', { draft: true }))
    expect(intents).toEqual([add('commented'), add('draft')])
    expect(stored?.state).toBe('draft')
  })
})

describe('Bitbucket updated', () => {
  it('without a message: a ready PR is posted, a draft ignored', () => {
    expect(run(prEvent('updated')).intents).toEqual([post])
    expect(run(prEvent('updated')).stored?.state).toBe('open')
    expect(run(prEvent('updated', { draft: true })).intents).toEqual([{ type: 'ignore', reason: 'draft' }])
  })

  it('a draft flag that differs from the state moves the message', () => {
    const toDraft = run(opened(), prEvent('updated', { draft: true }))
    expect(toDraft.intents).toEqual([add('draft')])
    expect(toDraft.stored?.state).toBe('draft')
    const toOpen = run(opened(), prEvent('updated', { draft: true }), prEvent('updated'))
    expect(toOpen.intents).toEqual([remove('draft')])
    expect(toOpen.stored?.state).toBe('open')
  })

  it('a title change updates; an update with nothing visible changed does nothing', () => {
    const renamed = run(opened(), prEvent('updated', { title: 'New' }))
    expect(renamed.intents).toEqual([])
    expect(renamed.stored?.context.title).toBe('New')
    const same = run(opened(), prEvent('updated'))
    expect(same.intents).toEqual([])
    expect(same.stored?.state).toBe('open')
  })
})

describe('reviews', () => {
  it.each(['approved', 'changes_requested', 'commented'] as const)('%s without a message posts, then reacts', (kind) => {
    const { stored, intents } = run(prEvent(kind))
    expect(intents).toEqual([post, add(kind)])
    expect(stored?.state).toBe('open')
  })

  it('a review of a draft without a message posts it as a draft', () => {
    const { stored, intents } = run(prEvent('approved', { draft: true }))
    expect(intents).toEqual([post, add('approved'), add('draft')])
    expect(stored?.state).toBe('draft')
  })

  it('a review of an ended PR without a message is ignored, and records the end', () => {
    const { stored, intents } = run(prEvent('commented', { state: 'merged' }))
    expect(intents).toEqual([{ type: 'ignore', reason: 'ended_before_announced' }])
    expect(stored?.state).toBe('ended')
  })

  it.each(['approved', 'changes_requested', 'commented'] as const)('%s with a message reacts once and updates', (kind) => {
    expect(run(opened(), prEvent(kind)).intents).toEqual([add(kind)])
    expect(run(opened(), prEvent(kind), prEvent(kind, { actor: 'dave' })).intents).toEqual([])
  })

  it("records verdicts; a reviewer's latest one wins, and the reactions follow", () => {
    const { stored, intents } = run(opened(), prEvent('approved', { actor: 'carol' }), prEvent('changes_requested', { actor: 'carol' }))
    expect(intents).toEqual([add('changes_requested'), remove('approved')])
    expect(stored?.context).toMatchObject({ approvedBy: [], changesRequestedBy: ['carol'] })
  })

  it('comments count', () => {
    expect(run(opened(), prEvent('commented'), prEvent('commented', { actor: 'dave' })).stored?.context.commentCount).toBe(2)
  })

  it.each(['approved', 'changes_requested', 'commented'] as const)('a bot %s adds the bot reaction once and is recorded', (kind) => {
    const bot = { actor: 'ci[bot]', bot: true }
    expect(run(opened(), prEvent(kind, bot)).intents).toEqual([add(kind), add('bot')])
    const twice = run(opened(), prEvent(kind, bot), prEvent('commented', bot))
    expect(twice.intents).not.toContainEqual(add('bot'))
    expect(twice.stored?.context.botReviewers).toEqual(['ci[bot]'])
  })

  it.each([['merged', 'merged'], ['closed', 'closed']] as const)('a review after %s still counts; the state stays', (kind, state) => {
    const { stored, intents } = run(opened(), prEvent(kind, { state }), prEvent('approved', { state }))
    expect(intents).toEqual([add('approved')])
    expect(stored?.state).toBe(state)
    expect(stored?.context.approvedBy).toEqual(['carol'])
  })
})

describe('reviews taken back', () => {
  it.each(['review_dismissed', 'approval_removed', 'changes_request_removed'] as const)('%s without a message is ignored', (kind) => {
    expect(run(prEvent(kind)).intents).toEqual([{ type: 'ignore', reason: 'no_stored_message' }])
  })

  it.each(['review_dismissed', 'approval_removed'] as const)('%s keeps the reaction while another approval remains', (kind) => {
    const two = [opened(), prEvent('approved', { actor: 'carol' }), prEvent('approved', { actor: 'dave' })]
    const one = run(...two, prEvent(kind, { actor: 'carol' }))
    expect(one.intents).toEqual([])
    expect(one.stored?.context.approvedBy).toEqual(['dave'])
    expect(run(...two, prEvent(kind, { actor: 'carol' }), prEvent(kind, { actor: 'dave' })).intents).toEqual([remove('approved')])
  })

  it('changes_request_removed takes back only a change request', () => {
    const base = [opened(), prEvent('approved', { actor: 'carol' }), prEvent('changes_requested', { actor: 'dave' })]
    const { stored, intents } = run(...base, prEvent('changes_request_removed', { actor: 'dave' }))
    expect(intents).toEqual([remove('changes_requested')])
    expect(stored?.context).toMatchObject({ approvedBy: ['carol'], changesRequestedBy: [] })
  })

  it('a GitHub dismissal removes its author from both lists', () => {
    const base = [opened(), prEvent('changes_requested', { actor: 'carol' })]
    const { stored, intents } = run(...base, prEvent('review_dismissed', { actor: 'carol' }))
    expect(intents).toEqual([remove('changes_requested')])
    expect(stored?.context).toMatchObject({ approvedBy: [], changesRequestedBy: [] })
  })

  it('taking back a review that was never recorded changes no reaction, even by a bot', () => {
    expect(run(opened(), prEvent('approval_removed', { actor: 'nobody' })).intents).toEqual([])
    const bot = run(opened(), prEvent('review_dismissed', { actor: 'ci[bot]', bot: true }))
    expect(bot.intents).toEqual([])
    expect(bot.stored?.context.botReviewers).toEqual([])
  })
})

describe('edited, merged, closed', () => {
  it('edited without a message is ignored', () => {
    expect(run(prEvent('edited')).intents).toEqual([{ type: 'ignore', reason: 'no_stored_message' }])
  })

  it.each(['merged', 'closed'] as const)('%s without a message is ignored and moves to ended', (kind) => {
    const { stored, intents } = run(prEvent(kind, { state: kind }))
    expect(intents).toEqual([{ type: 'ignore', reason: 'ended_before_announced' }])
    expect(stored?.state).toBe('ended')
  })

  it('edited updates the title', () => {
    const { stored, intents } = run(opened(), prEvent('edited', { title: 'Renamed' }))
    expect(intents).toEqual([])
    expect(stored?.context.title).toBe('Renamed')
  })

  it.each([['merged', 'merged'], ['closed', 'closed']] as const)('%s ends the PR with its reaction', (kind, state) => {
    const { stored, intents } = run(opened(), prEvent(kind, { state, title: 'Final' }))
    expect(intents).toEqual([add(kind)])
    expect(stored?.state).toBe(state)
    expect(stored?.context.title).toBe('Final')
  })

  it('a closed after merged keeps the merge; a merge after closed replaces the closed reaction', () => {
    const late = run(opened(), prEvent('merged', { state: 'merged' }), prEvent('closed', { state: 'merged' }))
    expect(late.intents).toEqual([])
    expect(late.stored?.state).toBe('merged')
    const merged = run(opened(), prEvent('closed', { state: 'closed' }), prEvent('merged', { state: 'merged' }))
    expect(merged.intents).toEqual([add('merged'), remove('closed')])
  })
})

describe('decide() and the machine', () => {
  it('gives the same result from a stored snapshot and from its JSON round-trip', () => {
    const { stored } = run(opened(), prEvent('approved', { actor: 'ci[bot]', bot: true }), prEvent('converted_to_draft', { draft: true }))
    if (!stored) throw new Error('expected a stored lifecycle')
    const next = prEvent('ready_for_review')
    const direct = decide(stored, next)
    expect(decide(JSON.parse(JSON.stringify(stored)) as StoredLifecycle, next)).toEqual(direct)
    expect(JSON.parse(JSON.stringify(direct.next))).toEqual(direct.next)
  })

  it('never mutates the stored lifecycle it is given', () => {
    const stored: StoredLifecycle = { state: 'open', context: initialContext(opened()) }
    const copy = structuredClone(stored)
    decide(stored, prEvent('approved', { title: 'Renamed', bot: true }))
    expect(stored).toEqual(copy)
  })

  it('an ignore leaves next as the unannounced snapshot the worker will not store', () => {
    const result = decide(undefined, prEvent('edited'))
    expect(result.intents).toEqual([{ type: 'ignore', reason: 'no_stored_message' }])
    expect(result.next).toEqual({ state: 'unannounced', context: initialContext(prEvent('edited')) })
  })

  it('transition() returns intents as named actions, without running them, and no assign', () => {
    const [start] = initialTransition(pullRequestMachine, initialContext(opened()))
    const [next, actions] = transition(pullRequestMachine, start, toMachineEvent(prEvent('approved', { draft: true })))
    expect(actions.map((a) => a.type)).toEqual(['post', 'update'])
    expect(next.value).toBe('draft')
    expect(next.context.reactions).toEqual(['approved', 'draft'])
  })

  it('has the six readable states a diagram walks', () => {
    expect(Object.keys(pullRequestMachine.root.states)).toEqual(['unannounced', 'ended', 'open', 'draft', 'merged', 'closed'])
  })
})

const KINDS: EventKind[] = [
  'opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'updated', 'edited', 'approved', 'changes_requested',
  'commented', 'approval_removed', 'changes_request_removed', 'review_dismissed', 'merged', 'closed',
]
const anyEvent = fc.record({
  kind: fc.constantFrom(...KINDS),
  draft: fc.boolean(),
  state: fc.constantFrom('open', 'closed', 'merged') as fc.Arbitrary<PullRequestFacts['state']>,
  title: fc.constantFrom('A', 'B'),
  actor: fc.constantFrom('carol', 'dave', 'ci[bot]'),
  // A few times, so that deliveries are out of order and ties happen.
  updatedAt: fc.constantFrom('2026-11-20T10:00:00Z', '2026-11-20T10:05:00Z', '2026-11-20T10:10:00Z'),
}).map(({ kind, actor, ...facts }) => prEvent(kind, { ...facts, actor, bot: actor.endsWith('[bot]') }))

describe('any sequence of deliveries', () => {
  it('posts only without a message, at most once, and its reactions follow the state', () => {
    fc.assert(fc.property(fc.array(anyEvent, { maxLength: 30 }), (events) => {
      let stored: StoredLifecycle | undefined
      for (const e of events) {
        const { next, intents } = decide(stored, e)
        expect(decide(stored, e)).toEqual({ next, intents })
        if (intents.some((i) => i.type === 'ignore')) {
          expect(intents).toHaveLength(1)
          // Without a message an end is recorded, and kept; with one, an ignore changes nothing.
          if (stored !== undefined && stored.state !== 'ended') expect(next).toEqual(stored)
          else if (stored?.state === 'ended' || e.kind === 'merged' || e.kind === 'closed') expect(next.state).toBe('ended')
          if (storesWithoutMessage({ next, intents })) stored = JSON.parse(JSON.stringify(next)) as StoredLifecycle
          continue
        }
        expect(intents.length).toBeLessThanOrEqual(1)
        // A pull request without a message (or with an unannounced end) moves only by being announced.
        if (stored === undefined || stored.state === 'ended') expect(intents).toEqual([post])
        if (intents.some((i) => i.type === 'post')) {
          expect(stored === undefined || stored.state === 'ended').toBe(true)
          // Out of an unannounced end only by an event that shows the PR open and was sent after the end.
          if (stored?.state === 'ended') {
            expect(e.pr.state).toBe('open')
            expect(Date.parse(e.pr.updatedAt)).toBeGreaterThan(Date.parse(stored.context.endedAt!))
          }
        }
        expect(new Set(next.context.reactions).size).toBe(next.context.reactions.length)
        expect(next.state === 'draft').toBe(next.state !== 'merged' && next.state !== 'closed' && next.context.reactions.includes('draft'))
        expect(next.context.reactions.includes('closed')).toBe(next.state === 'closed')
        expect(next.context.reactions.includes('approved')).toBe(next.context.approvedBy.length > 0)
        expect(next.context.reactions.includes('changes_requested')).toBe(next.context.changesRequestedBy.length > 0)
        stored = JSON.parse(JSON.stringify(next)) as StoredLifecycle
      }
    }))
  })
})
