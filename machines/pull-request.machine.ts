import { assign, setup } from 'xstate'
import type { ReactionKey } from './reaction-key.ts'
import type { DependencyBump } from './dependency-bump.ts'
import type { EventKind, PullRequestEvent, PullRequestId } from './pull-request-event.ts'
import { checksVerdict, isForHead, recordCheck, recordHead, type CheckFacts } from './check-facts.ts'
import type { ReviewClick } from './lifecycle-event.ts'
import { recordEnd, stillEnded, type EndFacts } from './end-facts.ts'
import { clearClaims, toggleClaim, type ReviewClaims } from './review-claims.ts'
import { forgetReview, isDismissedReview, recordReview, type ReviewFacts } from './review-facts.ts'
import type { WaitingFacts } from './review-requests.ts'
import type { AccountFacts } from './account-ids.ts'

/**
 * The lifecycle of one pull request's Slack message. It decides and never does I/O: transitions return
 * named intents (post, update, ignore) and change the set of reactions the message should carry; decide()
 * turns that set's change into addReaction / removeReaction. No invoke, no after, no clock: the snapshot is
 * stored in SQLite and restored for each delivery, and the same snapshot + event always gives the same result.
 */

export type { ReactionKey }

export interface PullRequestContext extends PullRequestId, ReviewFacts, EndFacts, WaitingFacts, AccountFacts, CheckFacts, ReviewClaims {
  title: string
  url: string
  author: string
  createdAt: string
  /** Reactions the message carries now. Kept as state so that an intent never adds one twice or removes one that is absent. */
  reactions: ReactionKey[]
  /**
   * Set when a dependency bot opened the pull request, as classified at announcement and kept from then on (a
   * label added later does not turn a posted bump into an alarm). The renderer draws the one-line message
   * from it; a digest leaves such pull requests out.
   */
  dependencyBump?: DependencyBump
  /** The host's reference (`MR !7`), kept from the announcement; absent: `PR #7` (pull-request-event.ts, referenceOf). */
  reference?: string
  /** The target branch, as the latest delivery that names one says (absent: none has yet). */
  into?: string
  /** The target branch changed after it was first known: the message names it from then on (docs/routing.md). */
  retargeted?: true
}

/** The target branch a delivery names, and whether that is a retarget of the one known. */
function targetOf(context: PullRequestContext, event: PullRequestEvent): Pick<PullRequestContext, 'into' | 'retargeted'> {
  const into = event.pr.into
  if (into === undefined || into === context.into) return {}
  return context.into === undefined ? { into } : { into, retargeted: true }
}

export type IgnoreIntentReason = 'draft' | 'no_stored_message' | 'ended_before_announced' | 'not_head_commit' | 'pull_request_ended' | 'dismissed_review'

/** What decide() tells its caller beyond the next snapshot: announce it, or ignore the event (and why). */
export type Intent =
  | { type: 'post' }
  | { type: 'ignore'; reason: IgnoreIntentReason }

/** A git host's delivery, or a "Start review" click in Slack (review-claims.ts). */
export type MachineEvent =
  | { type: EventKind; event: PullRequestEvent }
  | { type: 'review_click'; click: ReviewClick }

export const toMachineEvent = (event: PullRequestEvent | ReviewClick): MachineEvent =>
  event.kind === 'review_click' ? { type: 'review_click', click: event } : { type: event.kind, event }

/** The delivery behind a git-host event; the actions that read it are bound to those events only. */
function hostEvent(event: MachineEvent): PullRequestEvent {
  if (event.type === 'review_click') throw new TypeError('a git-host action was bound to a review click')
  return event.event
}

/** The context of a pull request that has no message yet; the transition that posts refreshes it anyway. */
export function initialContext(event: PullRequestEvent): PullRequestContext {
  return {
    provider: event.provider, owner: event.owner, repo: event.repo, number: event.number,
    title: event.pr.title, url: event.pr.url, author: event.pr.author, createdAt: event.pr.createdAt,
    approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [], reactions: [],
  }
}

const withReaction = (reactions: ReactionKey[], reaction: ReactionKey) => (reactions.includes(reaction) ? reactions : [...reactions, reaction])
const withoutReaction = (reactions: ReactionKey[], reaction: ReactionKey) => reactions.filter((r) => r !== reaction)
const REVIEW_KINDS: ReadonlySet<EventKind> = new Set(['approved', 'changes_requested', 'commented'])

/**
 * Reactions after a review was recorded or taken back. Approved and changes-requested mirror the reviewer
 * lists (so the reaction goes only when the last such review goes); commented and bot only ever accumulate.
 */
function reviewReactions(context: PullRequestContext, event: PullRequestEvent): ReactionKey[] {
  let reactions = context.reactions
  reactions = context.approvedBy.length > 0 ? withReaction(reactions, 'approved') : withoutReaction(reactions, 'approved')
  reactions = context.changesRequestedBy.length > 0
    ? withReaction(reactions, 'changes_requested')
    : withoutReaction(reactions, 'changes_requested')
  if (event.kind === 'commented') reactions = withReaction(reactions, 'commented')
  if (event.actor.isBot && REVIEW_KINDS.has(event.kind)) reactions = withReaction(reactions, 'bot')
  return reactions
}

const ignoreDraft = { type: 'ignore', params: { reason: 'draft' } } as const
const ignoreNoMessage = { type: 'ignore', params: { reason: 'no_stored_message' } } as const
const ignoreEnded = { type: 'ignore', params: { reason: 'ended_before_announced' } } as const
const ignoreNotHead = { type: 'ignore', params: { reason: 'not_head_commit' } } as const
/** A review the host dismissed since, submitted again (a replayed delivery): a superseded fact changes nothing. */
const refuseDismissed = { guard: 'dismissedReview', actions: { type: 'ignore', params: { reason: 'dismissed_review' } } } as const

/** The `checks_failed` reaction follows the head's results: on while any fails, off otherwise (a new head has none). */
const checkReactions = (context: PullRequestContext, reactions = context.reactions) =>
  checksVerdict(context) === 'failing' ? withReaction(reactions, 'checks_failed') : withoutReaction(reactions, 'checks_failed')

/** A click on the button of a message that no longer has it (Slack had not redrawn it yet): the review is over. */
const reviewOver = { type: 'ignore', params: { reason: 'pull_request_ended' } } as const
/** Without a message, an event that shows the PR merged or closed records the end, so that nothing later announces it. */
const end = { target: 'ended', actions: ['recordEnd', ignoreEnded] } as const
const endIfEnded = { guard: 'prEnded', ...end } as const
/** Without a message: an ended PR is not announced (it would read as new), a draft waits, a ready PR is posted. */
const announce = [
  endIfEnded,
  { guard: 'prIsDraft', actions: ignoreDraft },
  { target: 'open', actions: ['refresh', 'classify', 'post'] },
] as const
/** A review does not wait for a draft: the PR is posted, as a draft if it is one (see `open` below). */
const announceReview = [
  endIfEnded,
  { target: 'open', actions: ['refresh', 'classify', 'recordReview', 'syncReviewReactions', 'post'] },
] as const
/** An event that cannot start a message: ignored, but it still tells that the PR ended. */
const noMessage = [endIfEnded, { actions: ignoreNoMessage }] as const

/**
 * After an unannounced end, everything stays silent (stale deliveries arrive late, replays repeat) unless the
 * event shows the PR reopened since: then it is treated as an event of a PR without a message.
 */
const staysEnded = { guard: 'stillEnded', actions: ['recordEnd', ignoreEnded] } as const
const announceReopened = [
  staysEnded,
  { guard: 'prIsDraft', actions: ignoreDraft },
  { target: 'open', actions: ['refresh', 'classify', 'forgetEnd', 'post'] },
] as const
const announceReopenedReview = [
  staysEnded,
  { target: 'open', actions: ['refresh', 'classify', 'forgetEnd', 'recordReview', 'syncReviewReactions', 'post'] },
] as const

export const pullRequestMachine = setup({
  types: {
    context: {} as PullRequestContext,
    events: {} as MachineEvent,
    input: {} as PullRequestContext,
  },
  actions: {
    // Intents: no implementation here; the worker reads them from transition()'s result.
    post: () => {},
    update: () => {},
    ignore: (_, _params: { reason: IgnoreIntentReason }) => {},

    refresh: assign(({ context, event }) => {
      const host = hostEvent(event)
      // An author never changes; a delivery that cannot name one (author '') leaves the one known, and the
      // first delivery that names it fills it in.
      const facts = { title: host.pr.title, url: host.pr.url, author: context.author !== '' ? context.author : host.pr.author, ...targetOf(context, host) }
      const head = recordHead(context, host)
      return head.head === undefined ? facts : { ...facts, ...head, reactions: checkReactions({ ...context, ...head }) }
    }),
    recordCheck: assign(({ context, event }) => {
      const checks = recordCheck(context, hostEvent(event))
      return { ...checks, reactions: checkReactions({ ...context, ...checks }) }
    }),
    // Only at announcement: the message keeps the form it was posted in.
    classify: assign(({ event }) => {
      const { dependencyBump, reference } = hostEvent(event)
      // Set only when the host gives one: a stored context stays as it was for the others.
      return reference === undefined ? { dependencyBump } : { dependencyBump, reference }
    }),
    recordReview: assign(({ context, event }) => recordReview(context, hostEvent(event))),
    forgetReview: assign(({ context, event }) => forgetReview(context, hostEvent(event))),
    syncReviewReactions: assign(({ context, event }) => ({ reactions: reviewReactions(context, hostEvent(event)) })),
    react: assign(({ context }, params: { reaction: ReactionKey }) => ({ reactions: withReaction(context.reactions, params.reaction) })),
    unreact: assign(({ context }, params: { reaction: ReactionKey }) => ({ reactions: withoutReaction(context.reactions, params.reaction) })),
    recordEnd: assign(({ context, event }) => recordEnd(context, hostEvent(event))),
    forgetEnd: assign({ endedAt: undefined }),
    toggleClaim: assign(({ context, event }) => (event.type === 'review_click' ? toggleClaim(context, event.click.user) : {})),
    clearClaims: assign(({ context, event }) => clearClaims(context, hostEvent(event))),
  },
  guards: {
    // A check result carries no draft flag of its own (check-intake.ts fills in a stored one, maybe stale), and a
    // click (open and draft's `always` check these after it) says nothing about the draft flag.
    prIsDraft: ({ event }) => event.type !== 'check_completed' && event.type !== 'review_click' && event.event.pr.draft,
    prIsReady: ({ event }) => event.type !== 'check_completed' && event.type !== 'review_click' && !event.event.pr.draft,
    checkForHead: ({ context, event }) => isForHead(context, hostEvent(event)),
    prEnded: ({ event }) => hostEvent(event).pr.state !== 'open',
    stillEnded: ({ context, event }) => stillEnded(context, hostEvent(event)),
    // A retarget (GitLab's `update` with `changes.target_branch`, Bitbucket's `pullrequest:updated`) is shown too.
    shownChanged: ({ context, event }) => hostEvent(event).pr.title !== context.title || targetOf(context, hostEvent(event)).retargeted === true,
    dismissedReview: ({ context, event }) => isDismissedReview(context, hostEvent(event)),
  },
}).createMachine({
  id: 'pullRequest',
  initial: 'unannounced',
  context: ({ input }) => input,
  // What every state with a message does; `unannounced` overrides all of it, the other states a few events.
  on: {
    opened: { actions: ['refresh', 'update'] },
    reopened: { actions: ['refresh', 'update'] },
    ready_for_review: { actions: ['refresh', 'update'] },
    converted_to_draft: { actions: ['refresh', 'update'] },
    // Bitbucket sends `updated` for every push too: only a visible change (title or target branch here, draft
    // flag in open/draft below) touches the message.
    updated: { guard: 'shownChanged', actions: ['refresh', 'update'] },
    edited: { actions: ['refresh', 'update'] },
    approved: [refuseDismissed, { actions: ['refresh', 'recordReview', 'clearClaims', 'syncReviewReactions', 'update'] }],
    changes_requested: [refuseDismissed, { actions: ['refresh', 'recordReview', 'clearClaims', 'syncReviewReactions', 'update'] }],
    commented: [refuseDismissed, { actions: ['refresh', 'recordReview', 'syncReviewReactions', 'update'] }],
    approval_removed: { actions: ['refresh', 'forgetReview', 'syncReviewReactions', 'update'] },
    changes_request_removed: { actions: ['refresh', 'forgetReview', 'syncReviewReactions', 'update'] },
    review_dismissed: { actions: ['refresh', 'forgetReview', 'syncReviewReactions', 'update'] },
    // Who is waited on is recorded for every event by decide() (review-requests.ts); here, only refresh.
    review_requested: { actions: ['refresh', 'update'] },
    review_request_removed: { actions: ['refresh', 'update'] },
    merged: { target: '.merged', actions: ['refresh', 'update'] },
    closed: { target: '.closed', actions: ['refresh', 'update'] },
    // GitHub: a push moves the head; its checks start over (refresh records the head).
    synchronize: { actions: ['refresh', 'update'] },
    // Never refreshes: a check result's pull-request facts are the stored ones (check-intake.ts).
    check_completed: [{ guard: 'checkForHead', actions: ['recordCheck', 'update'] }, { actions: ignoreNotHead }],

    // "Start review" (only a message has the button): claims the review or gives it back.
    review_click: { actions: ['toggleClaim', 'update'] },
  },
  states: {
    unannounced: {
      on: {
        opened: announce,
        reopened: announce,
        ready_for_review: announce,
        // Bitbucket has no ready-for-review event: an update of a ready PR without a message announces it.
        updated: announce,
        converted_to_draft: { actions: ignoreDraft },
        approved: announceReview,
        changes_requested: announceReview,
        commented: announceReview,
        approval_removed: noMessage,
        changes_request_removed: noMessage,
        review_dismissed: noMessage,
        // A request for review is news, like a review: a ready pull request without a message is announced. So is
        // a removal: it carries the full list too, and arriving before the request (out of order) it must not be lost.
        review_requested: announce,
        review_request_removed: announce,
        edited: noMessage,
        synchronize: noMessage,
        check_completed: { actions: ignoreNoMessage },
        merged: end,
        closed: end,
        review_click: { actions: ignoreNoMessage },
      },
    },
    // Ended before it was announced (merged or closed while prherald was down, or delivered out of order): a row
    // without a message. decide() hands this snapshot back with the ignore, for the caller to store.
    ended: {
      on: {
        opened: announceReopened,
        reopened: announceReopened,
        ready_for_review: announceReopened,
        updated: announceReopened,
        converted_to_draft: [staysEnded, { actions: ignoreDraft }],
        approved: announceReopenedReview,
        changes_requested: announceReopenedReview,
        commented: announceReopenedReview,
        approval_removed: [staysEnded, { actions: ignoreNoMessage }],
        changes_request_removed: [staysEnded, { actions: ignoreNoMessage }],
        review_dismissed: [staysEnded, { actions: ignoreNoMessage }],
        review_requested: announceReopened,
        review_request_removed: announceReopened,
        edited: [staysEnded, { actions: ignoreNoMessage }],
        synchronize: [staysEnded, { actions: ignoreNoMessage }],
        check_completed: { actions: ignoreNoMessage },
        merged: { actions: ['recordEnd', ignoreEnded] },
        closed: { actions: ['recordEnd', ignoreEnded] },
        review_click: { actions: ignoreNoMessage },
      },
    },
    // Open and draft follow the draft flag of every event (it is the freshest fact), whichever event carries it.
    // The `update` here repeats the event's own one except for a Bitbucket `updated` that changed only the flag;
    // decide() keeps one.
    open: {
      entry: { type: 'unreact', params: { reaction: 'draft' } },
      always: { guard: 'prIsDraft', target: 'draft', actions: 'update' },
    },
    draft: {
      entry: { type: 'react', params: { reaction: 'draft' } },
      always: { guard: 'prIsReady', target: 'open', actions: 'update' },
    },
    // Terminal: a merge cannot be undone on either host, so a late `closed` or `reopened` only refreshes.
    merged: {
      entry: { type: 'react', params: { reaction: 'merged' } },
      on: { closed: { actions: ['refresh', 'update'] }, review_click: { actions: reviewOver } },
    },
    closed: {
      entry: { type: 'react', params: { reaction: 'closed' } },
      exit: { type: 'unreact', params: { reaction: 'closed' } },
      on: {
        review_click: { actions: reviewOver },
        reopened: { target: 'open', actions: ['refresh', 'update'] },
        opened: { target: 'open', actions: ['refresh', 'update'] },
      },
    },
  },
})
