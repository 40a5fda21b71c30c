import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { recordRequests, reviewerKey, waitingOn, type WaitingFacts } from '../../machines/review-requests.ts'
import type { EventKind, PullRequestEvent, Reviewer } from '../../machines/pull-request-event.ts'
import { prEvent, run } from './lifecycle-run.ts'

const user = (login: string, accountId?: string): Reviewer => ({ type: 'user', login, ...(accountId ? { accountId } : {}) })
const team = (slug: string): Reviewer => ({ type: 'team', slug, name: slug })
const T = (second: number) => `2026-11-20T10:00:${String(second).padStart(2, '0')}Z`

interface Step {
  kind: EventKind
  at: number
  list?: Reviewer[]
  reviewer?: Reviewer
  actor?: string
  submittedReview?: boolean
}

function eventOf(step: Step): PullRequestEvent {
  const base = prEvent(step.kind, { updatedAt: T(step.at), actor: step.actor ?? 'carol' })
  return {
    ...base,
    pr: { ...base.pr, ...(step.list ? { requestedReviewers: step.list } : {}) },
    ...(step.reviewer ? { reviewer: step.reviewer } : {}),
    ...(step.submittedReview ? { submittedReview: true as const } : {}),
  }
}

const fold = (steps: readonly Step[]): WaitingFacts => steps.reduce<WaitingFacts>((facts, s) => recordRequests(facts, eventOf(s)), {})
const names = (facts: WaitingFacts) => waitingOn(facts).map((r) => (r.type === 'user' ? r.login : `team:${r.slug}`))

describe('waitingOn / recordRequests', () => {
  it('waits on nobody before any list or request', () => {
    expect(waitingOn({})).toEqual([])
    expect(names(fold([{ kind: 'commented', at: 1 }]))).toEqual([])
  })

  it('takes the payload list, users then teams, in the host order', () => {
    expect(names(fold([{ kind: 'opened', at: 1, list: [user('dave'), user('erin'), team('backend')] }]))).toEqual(['dave', 'erin', 'team:backend'])
  })

  it('adds a requested reviewer and team, and a removal clears only that one', () => {
    const steps: Step[] = [
      { kind: 'opened', at: 1, list: [] },
      { kind: 'review_requested', at: 2, reviewer: user('dave'), list: [user('dave')] },
      { kind: 'review_requested', at: 3, reviewer: team('backend'), list: [user('dave'), team('backend')] },
    ]
    expect(names(fold(steps))).toEqual(['dave', 'team:backend'])
    expect(names(fold([...steps, { kind: 'review_request_removed', at: 4, reviewer: team('backend'), list: [user('dave')] }]))).toEqual(['dave'])
  })

  it('a review clears only its own reviewer, even when the payload list still names them at the same time', () => {
    const steps: Step[] = [{ kind: 'review_requested', at: 2, reviewer: user('erin'), list: [user('dave'), user('erin')] }]
    expect(names(fold([...steps, { kind: 'approved', at: 2, actor: 'Dave', list: [user('dave'), user('erin')] }]))).toEqual(['erin'])
    expect(names(fold([...steps, { kind: 'changes_requested', at: 3, actor: 'erin' }]))).toEqual(['dave'])
    // A submitted review in state commented ends the request on GitHub; a conversation comment does not.
    expect(names(fold([...steps, { kind: 'commented', at: 3, actor: 'erin', submittedReview: true }]))).toEqual(['dave'])
    expect(names(fold([...steps, { kind: 'commented', at: 3, actor: 'erin' }]))).toEqual(['dave', 'erin'])
  })

  it('a removal wins over the same-second list that still names the reviewer (the real removed example does)', () => {
    expect(names(fold([
      { kind: 'review_requested', at: 5, reviewer: user('octocat'), list: [user('octocat')] },
      { kind: 'review_request_removed', at: 5, reviewer: user('octocat'), list: [user('octocat')] },
    ]))).toEqual([])
  })

  it('asks again a reviewer who reviewed and is requested later', () => {
    expect(names(fold([
      { kind: 'approved', at: 2, actor: 'dave' },
      { kind: 'review_requested', at: 3, reviewer: user('dave'), list: [user('dave')] },
    ]))).toEqual(['dave'])
  })

  it('a newer full list replaces the set; an older one changes nothing (Bitbucket updated)', () => {
    const newer: Step = { kind: 'updated', at: 9, list: [user('mlin', 'acc-2')] }
    const older: Step = { kind: 'updated', at: 4, list: [user('rcosta', 'acc-1'), user('mlin', 'acc-2')] }
    expect(names(fold([older, newer]))).toEqual(['mlin'])
    expect(names(fold([newer, older]))).toEqual(['mlin'])
  })

  it('keys Bitbucket people by account id and GitHub logins without case', () => {
    expect(reviewerKey(user('Dave'))).toBe(reviewerKey(user('dave')))
    expect(reviewerKey(user('dana', 'acc-1'))).not.toBe(reviewerKey(user('dana', 'acc-2')))
    // An approval by the account that is listed clears it, whatever its nickname now is.
    const facts = fold([{ kind: 'updated', at: 1, list: [user('rcosta', 'acc-1')] }])
    const approval = { ...eventOf({ kind: 'approved', at: 2 }), actor: { login: 'rui', isBot: false, accountId: 'acc-1' } }
    expect(waitingOn(recordRequests(facts, approval))).toEqual([])
  })

  it('drops marks older than the newest list, so the state stays small', () => {
    const facts = fold([
      { kind: 'review_requested', at: 1, reviewer: user('a'), list: [user('a')] },
      { kind: 'review_requested', at: 2, reviewer: user('b'), list: [user('a'), user('b')] },
      { kind: 'opened', at: 3, list: [user('a'), user('b')] },
    ])
    expect(facts.reviewRequests?.marks).toEqual([])
    expect(names(facts)).toEqual(['a', 'b'])
  })
})

describe('order and repetition do not matter', () => {
  const people = [user('a'), user('b'), team('t')]
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant<EventKind>('opened'), at: fc.integer({ min: 0, max: 4 }), list: fc.subarray(people) }),
    fc.record({ kind: fc.constantFrom<EventKind>('review_requested', 'review_request_removed'), at: fc.integer({ min: 0, max: 4 }), reviewer: fc.constantFrom(...people) }),
    fc.record({ kind: fc.constantFrom<EventKind>('approved', 'changes_requested'), at: fc.integer({ min: 0, max: 4 }), actor: fc.constantFrom('a', 'b') }),
    fc.record({ kind: fc.constant<EventKind>('commented'), at: fc.integer({ min: 0, max: 4 }), actor: fc.constantFrom('a', 'b'), submittedReview: fc.boolean() }),
  )
  const key = (facts: WaitingFacts) => waitingOn(facts).map(reviewerKey).sort()

  it('any permutation of the same deliveries, with any of them repeated, waits on the same people', () => {
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), (steps, seed, repeat) => {
      const shuffled = fc.sample(fc.shuffledSubarray(steps, { minLength: steps.length, maxLength: steps.length }), { numRuns: 1, seed })[0]!
      const withRepeat = [...shuffled, shuffled[repeat % shuffled.length]!]
      expect(key(fold(withRepeat))).toEqual(key(fold(steps)))
    }), { numRuns: 500 })
  })
})

describe('review requests in the lifecycle', () => {
  const requested = (reviewer: Reviewer, updatedAt = T(1)) => ({ ...prEvent('review_requested', { updatedAt }), reviewer })

  it('a review request of a ready pull request without a message announces it, already waiting on the reviewer', () => {
    const { stored, intents } = run(requested(user('dave')))
    expect(intents).toEqual([{ type: 'post' }])
    expect(waitingOn(stored!.context).map(reviewerKey)).toEqual(['user:dave'])
  })

  it('a removal without a message announces too (it may be the first of out-of-order deliveries); a draft is not announced', () => {
    const { stored, intents } = run({ ...prEvent('review_request_removed'), reviewer: user('dave') })
    expect(intents).toEqual([{ type: 'post' }])
    expect(waitingOn(stored!.context)).toEqual([])
    const draft = { ...prEvent('review_requested', { draft: true }), reviewer: user('dave') }
    expect(run(draft).intents).toEqual([{ type: 'ignore', reason: 'draft' }])
  })

  it('with a message, a request and a removal each update it', () => {
    const { stored, intents } = run(prEvent('opened'), requested(team('backend'), T(2)), { ...prEvent('review_request_removed', { updatedAt: T(3) }), reviewer: user('nobody') })
    expect(intents).toEqual([])
    expect(waitingOn(stored!.context).map(reviewerKey)).toEqual(['team:backend'])
  })

  it('a Bitbucket updated that changes only the reviewers changes the stored lifecycle (the planner re-renders it)', () => {
    const opened = prEvent('opened', { provider: 'bitbucket', updatedAt: T(1) })
    const updated = prEvent('updated', { provider: 'bitbucket', updatedAt: T(2) })
    const { stored, intents } = run(opened, { ...updated, pr: { ...updated.pr, requestedReviewers: [user('mlin', 'acc-2')] } })
    expect(intents).toEqual([])
    expect(waitingOn(stored!.context)).toEqual([user('mlin', 'acc-2')])
    expect(stored!.context.accountIds).toEqual({ mlin: 'acc-2' })
  })
})
