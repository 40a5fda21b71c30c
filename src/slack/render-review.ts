import type { StoredLifecycle } from '../../machines/decide.ts'
import { pullRequestKey, type Provider, type PullRequestId } from '../../machines/pull-request-event.ts'
import type { ReviewActionsSetting } from '../config/talk-back-settings.ts'
import { START_REVIEW_ACTION } from './decode-interaction.ts'
import { reviewActionElements, type ReviewActionElement } from './render-review-actions.ts'

/** Block Kit's actions block with one button (docs.slack.dev, "Button element"). */
export interface ActionsBlock {
  type: 'actions'
  block_id: string
  elements: Array<{
    type: 'button'
    action_id: string
    text: { type: 'plain_text'; text: string; emoji: boolean }
    value: string
    url?: string
  } | ReviewActionElement>
}

export type ReviewBlock = ActionsBlock | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }

/** What the message may carry besides the pull request itself; how prherald runs decides it, not the PR. */
export interface RenderOptions {
  /** SLACK_SIGNING_SECRET is set: open pull requests get the "Start review" button. */
  reviewButton: boolean
  /**
   * `slack.talk_back` for the pull request's repository: `menu` or `buttons` when `reviews: on` (the review
   * actions then sit beside "Start review"), undefined when off. Absent: talk-back is off everywhere.
   */
  reviewActions?: (pr: PullRequestId) => ReviewActionsSetting | undefined
  /** Whether replies in a repository's threads become comments (`thread_replies` not off): the message says so. */
  repliesGo?: (provider: Provider, repository: string) => boolean
}

export const NO_BUTTON: RenderOptions = { reviewButton: false }

/** Slack's sizes for a button: `value` at most 2000 characters, `url` at most 3000. */
const BUTTON_LIMITS = { value: 2000, url: 3000 } as const

/** `:eyes: <@U1>, <@U2> reviewing`: the claims, in click order. IDs were checked at decode (`U…`/`W…` only). */
export function reviewingLine(reviewing: readonly string[]): string {
  return `:eyes: ${reviewing.map((u) => `<@${u}>`).join(', ')} reviewing`
}

/**
 * The review blocks at the end of the message: who is reviewing (while the pull request is open or a draft)
 * and, on an open one with the button on, "Start review". The button's value names the pull request; its url
 * opens the pull request's page too (Slack still sends the click to the interactivity URL). Pure.
 */
export function reviewBlocks(lifecycle: StoredLifecycle, options: RenderOptions): ReviewBlock[] {
  const { state, context } = lifecycle
  const blocks: ReviewBlock[] = []
  const reviewing = context.reviewing ?? []
  if (reviewing.length > 0 && (state === 'open' || state === 'draft')) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: reviewingLine(reviewing) }] })
  }
  const value = pullRequestKey(context)
  if (!options.reviewButton || state !== 'open' || value.length > BUTTON_LIMITS.value) return blocks
  const url = context.url.length > 0 && context.url.length <= BUTTON_LIMITS.url ? { url: context.url } : {}
  const actions = options.reviewActions?.(context)
  blocks.push({
    type: 'actions',
    block_id: 'prherald_review',
    elements: [
      { type: 'button', action_id: START_REVIEW_ACTION, text: { type: 'plain_text', text: 'Start review', emoji: true }, value, ...url },
      ...(actions ? reviewActionElements(actions) : []),
    ],
  })
  return blocks
}
