import type { ReviewActionsSetting } from '../config/talk-back-settings.ts'
import type { ReviewKind } from '../../machines/review-kind.ts'

/** The overflow menu's `action_id` (`review_actions: menu`); its options' values are the action's name. */
export const REVIEW_MENU_ACTION = 'prherald_review_menu'
/** The buttons' `action_id`s (`review_actions: buttons`), `prherald_review_approve` …; each button's value is the action's name. */
export const REVIEW_BUTTON_PREFIX = 'prherald_review_'

export const REVIEW_LABELS: Record<ReviewKind, string> = { approve: 'Approve', request_changes: 'Request changes', comment: 'Comment' }
const KINDS = Object.keys(REVIEW_LABELS) as ReviewKind[]

const plain = (text: string) => ({ type: 'plain_text' as const, text, emoji: true })

export type ReviewActionElement =
  | { type: 'overflow'; action_id: string; options: Array<{ text: ReturnType<typeof plain>; value: ReviewKind }> }
  | { type: 'button'; action_id: string; text: ReturnType<typeof plain>; value: ReviewKind; style?: 'primary' }

/**
 * "Approve", "Request changes" and "Comment" beside "Start review": one overflow menu, or three buttons.
 * Each carries only the action's name: what is reviewed is found from the message the click came from,
 * never from anything the click says (src/personal/review-from-slack.ts). Pure.
 */
export function reviewActionElements(style: ReviewActionsSetting): ReviewActionElement[] {
  if (style === 'menu') return [{ type: 'overflow', action_id: REVIEW_MENU_ACTION, options: KINDS.map((kind) => ({ text: plain(REVIEW_LABELS[kind]), value: kind })) }]
  return KINDS.map((kind) => ({
    type: 'button', action_id: `${REVIEW_BUTTON_PREFIX}${kind}`, text: plain(REVIEW_LABELS[kind]), value: kind, ...(kind === 'approve' ? { style: 'primary' as const } : {}),
  }))
}
