import { describe, expect, it } from 'vitest'
import { prEvent, run } from './lifecycle-run.ts'

/** The machine's transitions, without servers: stored snapshot + event → next snapshot + intents. */
const event = prEvent

describe('no message stored', () => {
  it.each(['opened', 'reopened', 'ready_for_review', 'updated'] as const)('%s of a ready PR posts and moves to open', (kind) => {
    const { stored, intents } = run(event(kind))
    expect(intents).toEqual([{ type: 'post' }])
    expect(stored?.state).toBe('open')
  })

  it.each(['opened', 'updated', 'converted_to_draft'] as const)('%s of a draft is ignored with reason draft', (kind) => {
    expect(run(event(kind, { draft: true })).intents).toEqual([{ type: 'ignore', reason: 'draft' }])
  })

  it.each(['edited', 'review_dismissed', 'approval_removed', 'changes_request_removed'] as const)(
    '%s is ignored with reason no_stored_message', (kind) => {
      expect(run(event(kind)).intents).toEqual([{ type: 'ignore', reason: 'no_stored_message' }])
    })

  it.each(['merged', 'closed'] as const)('%s is ignored with reason ended_before_announced, and the end is kept', (kind) => {
    const { stored, intents } = run(event(kind, { state: kind }))
    expect(intents).toEqual([{ type: 'ignore', reason: 'ended_before_announced' }])
    expect(stored?.state).toBe('ended')
  })

  it.each([
    ['approved', 'approved'], ['changes_requested', 'changes_requested'], ['commented', 'commented'],
  ] as const)('%s posts, then reacts', (kind, reaction) => {
    const { stored, intents } = run(event(kind))
    expect(intents).toEqual([{ type: 'post' }, { type: 'addReaction', reaction }])
    expect(stored?.state).toBe('open')
  })

  it('a review on a draft PR posts it as a draft', () => {
    const { stored, intents } = run(event('commented', { draft: true }))
    expect(stored?.state).toBe('draft')
    expect(intents).toContainEqual({ type: 'addReaction', reaction: 'draft' })
  })
})

describe('message stored', () => {
  const opened = event('opened')

  it('reopened / ready_for_review / opened update the message', () => {
    for (const kind of ['opened', 'reopened', 'ready_for_review'] as const) {
      expect(run(opened, event(kind)).intents).toEqual([])
    }
  })

  it('converted_to_draft moves to draft with the draft reaction; ready_for_review removes it', () => {
    const toDraft = run(opened, event('converted_to_draft', { draft: true }))
    expect(toDraft.stored?.state).toBe('draft')
    expect(toDraft.intents).toEqual([{ type: 'addReaction', reaction: 'draft' }])
    const back = run(opened, event('converted_to_draft', { draft: true }), event('ready_for_review'))
    expect(back.stored?.state).toBe('open')
    expect(back.intents).toEqual([{ type: 'removeReaction', reaction: 'draft' }])
  })

  it('Bitbucket updated compares the draft flag with the stored state', () => {
    expect(run(opened, event('updated', { draft: true })).stored?.state).toBe('draft')
    expect(run(opened, event('updated', { draft: true }), event('updated')).stored?.state).toBe('open')
    const titleOnly = run(opened, event('updated', { title: 'New' }))
    expect(titleOnly.intents).toEqual([])
    expect(titleOnly.stored?.context.title).toBe('New')
  })

  it('reviews record who approved or asked for changes; a reviewer\'s latest verdict wins', () => {
    const { stored } = run(opened, event('approved', { actor: 'carol' }), event('approved', { actor: 'dave' }), event('changes_requested', { actor: 'carol' }))
    expect(stored?.context.approvedBy).toEqual(['dave'])
    expect(stored?.context.changesRequestedBy).toEqual(['carol'])
  })

  it('never adds a reaction twice', () => {
    expect(run(opened, event('approved', { actor: 'carol' }), event('approved', { actor: 'dave' })).intents).toEqual([])
  })

  it('comments count, and a bot reviewer adds robot_face once', () => {
    const first = run(opened, event('commented', { actor: 'ci[bot]', bot: true }))
    expect(first.intents).toEqual([{ type: 'addReaction', reaction: 'commented' }, { type: 'addReaction', reaction: 'bot' }])
    const { stored, intents } = run(opened, event('commented', { actor: 'ci[bot]', bot: true }), event('commented', { actor: 'ci[bot]', bot: true }))
    expect(intents).toEqual([])
    expect(stored?.context.commentCount).toBe(2)
    expect(stored?.context.botReviewers).toEqual(['ci[bot]'])
  })

  it('a dismissal removes the reaction only when no such review remains', () => {
    const two = [opened, event('approved', { actor: 'carol' }), event('approved', { actor: 'dave' })]
    expect(run(...two, event('review_dismissed', { actor: 'carol' })).intents).toEqual([])
    expect(run(...two, event('review_dismissed', { actor: 'carol' }), event('review_dismissed', { actor: 'dave' })).intents)
      .toEqual([{ type: 'removeReaction', reaction: 'approved' }])
  })

  it('a dismissed review id never counts again: its replay is ignored, a new review of the same person counts', () => {
    const dismissed = [opened, event('approved', { actor: 'carol', reviewId: '41' }), event('review_dismissed', { actor: 'carol', reviewId: '41' })]
    const replay = run(...dismissed, event('approved', { actor: 'carol', reviewId: '41' }))
    expect(replay.intents).toEqual([{ type: 'ignore', reason: 'dismissed_review' }])
    expect(replay.stored?.context.approvedBy).toEqual([])
    expect(replay.stored?.context.dismissedReviews).toEqual(['41'])
    // Refused whatever its time says: the dismissal has no time to compare with.
    expect(run(...dismissed, event('changes_requested', { actor: 'carol', reviewId: '41', updatedAt: '2030-01-01T00:00:00Z' })).intents)
      .toEqual([{ type: 'ignore', reason: 'dismissed_review' }])
    const fresh = run(...dismissed, event('approved', { actor: 'carol', reviewId: '42' }))
    expect(fresh.intents).toEqual([{ type: 'addReaction', reaction: 'approved' }])
    expect(fresh.stored?.context.approvedBy).toEqual(['carol'])
  })

  it('unapproved and changes_request_removed take back only their own kind', () => {
    const base = [opened, event('approved', { actor: 'carol' }), event('changes_requested', { actor: 'dave' })]
    expect(run(...base, event('approval_removed', { actor: 'carol' })).intents).toEqual([{ type: 'removeReaction', reaction: 'approved' }])
    expect(run(...base, event('changes_request_removed', { actor: 'dave' })).intents).toEqual([{ type: 'removeReaction', reaction: 'changes_requested' }])
  })

  it('edited updates the title', () => {
    const { stored, intents } = run(opened, event('edited', { title: 'Renamed' }))
    expect(intents).toEqual([])
    expect(stored?.context.title).toBe('Renamed')
  })

  it('merged and closed end the PR with their reaction; reopening a closed PR removes x', () => {
    const merged = run(opened, event('merged'))
    expect(merged.stored?.state).toBe('merged')
    expect(merged.intents).toEqual([{ type: 'addReaction', reaction: 'merged' }])
    const reopened = run(opened, event('closed'), event('reopened'))
    expect(reopened.stored?.state).toBe('open')
    expect(reopened.intents).toEqual([{ type: 'removeReaction', reaction: 'closed' }])
  })

  it('a review after merge still counts but the state stays merged', () => {
    const { stored, intents } = run(opened, event('merged'), event('commented'))
    expect(stored?.state).toBe('merged')
    expect(intents).toEqual([{ type: 'addReaction', reaction: 'commented' }])
  })
})
