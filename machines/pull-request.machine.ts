import { assign, setup } from 'xstate'
import type { ReactionKey } from '../src/config/settings.ts'
import type { EventKind, Provider, PullRequestEvent } from '../src/decode/pull-request-event.ts'
import { forgetReview, recordReview, REVIEW_REACTION, type ReviewFacts } from './review-facts.ts'

/**
 * The lifecycle of one pull request's Slack message. It decides and never does I/O: transitions return
 * named intents (post, update, ignore) and change the set of reactions; the mailbox worker carries out
 * both. No invoke, no after: the snapshot is stored in SQLite and restored for each delivery.
 */

export type { ReactionKey }

export interface PullRequestContext extends ReviewFacts {
  provider: Provider
  owner: string
  repo: string
  number: number
  title: string
  url: string
  author: string
  createdAt: string
  /** Reactions the message carries; decide() diffs them between snapshots into add / remove intents. */
  reactions: ReactionKey[]
}

export type IgnoreIntentReason = 'draft' | 'no_stored_message'

export type Intent =
  | { type: 'post' }
  | { type: 'update' }
  | { type: 'addReaction'; reaction: ReactionKey }
  | { type: 'removeReaction'; reaction: ReactionKey }
  | { type: 'ignore'; reason: IgnoreIntentReason }

export type MachineEvent = { type: EventKind; event: PullRequestEvent }

export const toMachineEvent = (event: PullRequestEvent): MachineEvent => ({ type: event.kind, event })

export function initialContext(event: PullRequestEvent): PullRequestContext {
  return {
    provider: event.provider, owner: event.owner, repo: event.repo, number: event.number,
    title: event.pr.title, url: event.pr.url, author: event.pr.author, createdAt: event.pr.createdAt,
    approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [], reactions: [],
  }
}

const withReaction = (reactions: ReactionKey[], reaction: ReactionKey) =>
  reactions.includes(reaction) ? reactions : [...reactions, reaction]

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

    refresh: assign(({ event }) => ({ title: event.event.pr.title, url: event.event.pr.url, author: event.event.pr.author })),
    recordReview: assign(({ context, event }) => recordReview(context, event.event)),
    forgetReview: assign(({ context, event }) => forgetReview(context, event.event)),
    // Reactions are state: the machine keeps the set the message should carry, and decide() turns the
    // difference between two snapshots into reactions.add / reactions.remove calls.
    react: assign(({ context }, params: { reaction: ReactionKey }) => ({ reactions: withReaction(context.reactions, params.reaction) })),
    unreact: assign(({ context }, params: { reaction: ReactionKey }) => ({ reactions: context.reactions.filter((r) => r !== params.reaction) })),
    reactToReview: assign(({ context, event }) => {
      const review = REVIEW_REACTION[event.type]
      let reactions = review ? withReaction(context.reactions, review) : context.reactions
      if (event.event.actor.isBot) reactions = withReaction(reactions, 'bot')
      return { reactions }
    }),
    unreactIfNoneRemain: assign(({ context }) => ({
      reactions: context.reactions.filter((r) =>
        !(r === 'approved' && context.approvedBy.length === 0) && !(r === 'changes_requested' && context.changesRequestedBy.length === 0)),
    })),
  },
  guards: {
    isDraft: ({ event }) => event.event.pr.draft,
  },
}).createMachine({
  id: 'pullRequest',
  initial: 'unannounced',
  context: ({ input }) => input,
  // Events every announced state handles alike; `unannounced` overrides each of them.
  on: {
    approved: { actions: ['refresh', 'recordReview', 'update', 'reactToReview'] },
    changes_requested: { actions: ['refresh', 'recordReview', 'update', 'reactToReview'] },
    commented: { actions: ['refresh', 'recordReview', 'update', 'reactToReview'] },
    approval_removed: { actions: ['refresh', 'forgetReview', 'update', 'unreactIfNoneRemain'] },
    changes_request_removed: { actions: ['refresh', 'forgetReview', 'update', 'unreactIfNoneRemain'] },
    review_dismissed: { actions: ['refresh', 'forgetReview', 'update', 'unreactIfNoneRemain'] },
    edited: { actions: ['refresh', 'update'] },
    merged: { target: '.merged', actions: ['refresh', 'update', { type: 'react', params: { reaction: 'merged' } }] },
    closed: { target: '.closed', actions: ['refresh', 'update', { type: 'react', params: { reaction: 'closed' } }] },
  },
  states: {
    unannounced: {
      on: {
        opened: [
          { guard: 'isDraft', actions: { type: 'ignore', params: { reason: 'draft' } } },
          { target: 'open', actions: ['refresh', 'post'] },
        ],
        reopened: [
          { guard: 'isDraft', actions: { type: 'ignore', params: { reason: 'draft' } } },
          { target: 'open', actions: ['refresh', 'post'] },
        ],
        ready_for_review: [
          { guard: 'isDraft', actions: { type: 'ignore', params: { reason: 'draft' } } },
          { target: 'open', actions: ['refresh', 'post'] },
        ],
        // Bitbucket has no ready-for-review event: an update of a non-draft PR without a message announces it.
        updated: [
          { guard: 'isDraft', actions: { type: 'ignore', params: { reason: 'draft' } } },
          { target: 'open', actions: ['refresh', 'post'] },
        ],
        converted_to_draft: { actions: { type: 'ignore', params: { reason: 'draft' } } },
        approved: [
          { guard: 'isDraft', target: 'draft', actions: ['refresh', 'recordReview', 'post', 'reactToReview', { type: 'react', params: { reaction: 'draft' } }] },
          { target: 'open', actions: ['refresh', 'recordReview', 'post', 'reactToReview'] },
        ],
        changes_requested: [
          { guard: 'isDraft', target: 'draft', actions: ['refresh', 'recordReview', 'post', 'reactToReview', { type: 'react', params: { reaction: 'draft' } }] },
          { target: 'open', actions: ['refresh', 'recordReview', 'post', 'reactToReview'] },
        ],
        commented: [
          { guard: 'isDraft', target: 'draft', actions: ['refresh', 'recordReview', 'post', 'reactToReview', { type: 'react', params: { reaction: 'draft' } }] },
          { target: 'open', actions: ['refresh', 'recordReview', 'post', 'reactToReview'] },
        ],
        approval_removed: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
        changes_request_removed: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
        review_dismissed: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
        edited: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
        merged: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
        closed: { actions: { type: 'ignore', params: { reason: 'no_stored_message' } } },
      },
    },
    open: {
      on: {
        opened: [
          { guard: 'isDraft', target: 'draft', actions: ['refresh', 'update', { type: 'react', params: { reaction: 'draft' } }] },
          { actions: ['refresh', 'update'] },
        ],
        reopened: { actions: ['refresh', 'update'] },
        ready_for_review: { actions: ['refresh', 'update'] },
        converted_to_draft: { target: 'draft', actions: ['refresh', 'update', { type: 'react', params: { reaction: 'draft' } }] },
        updated: [
          { guard: 'isDraft', target: 'draft', actions: ['refresh', 'update', { type: 'react', params: { reaction: 'draft' } }] },
          { actions: ['refresh', 'update'] },
        ],
      },
    },
    draft: {
      on: {
        opened: [
          { guard: 'isDraft', actions: ['refresh', 'update'] },
          { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'draft' } }] },
        ],
        reopened: [
          { guard: 'isDraft', actions: ['refresh', 'update'] },
          { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'draft' } }] },
        ],
        ready_for_review: { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'draft' } }] },
        converted_to_draft: { actions: ['refresh', 'update'] },
        updated: [
          { guard: 'isDraft', actions: ['refresh', 'update'] },
          { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'draft' } }] },
        ],
      },
    },
    merged: {},
    closed: {
      on: {
        reopened: { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'closed' } }] },
        opened: { target: 'open', actions: ['refresh', 'update', { type: 'unreact', params: { reaction: 'closed' } }] },
      },
    },
  },
})
