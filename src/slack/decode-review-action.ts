import { REVIEW_KINDS, type ReviewKind } from '../../machines/review-kind.ts'
import { at, str } from '../read-fields.ts'
import { REVIEW_BUTTON_PREFIX, REVIEW_MENU_ACTION } from './render-review-actions.ts'

/** The review modal's `callback_id`, and where its text field sits in `view.state.values` (review-form-views.ts). */
export const REVIEW_FORM = { callbackId: 'prherald_review_form', block: 'review_text', action: 'text', maxLength: 3000 } as const

/** A click on a message's review action: which action, who, and the message it sits on. Nothing else is read from it. */
export interface ReviewActionClick {
  action: ReviewKind
  user: string
  channel: string
  messageTs: string
  triggerId: string
}

/** A review modal submitted: the form's id (its private_metadata, looked up, never trusted), who, the view, the text. */
export interface ReviewSubmission {
  formId: string
  user: string
  viewId: string
  text: string
}

const IDS: ReadonlySet<string> = new Set([REVIEW_MENU_ACTION, ...REVIEW_KINDS.map((k) => `${REVIEW_BUTTON_PREFIX}${k}`)])
export const isReviewAction = (actionId: string | undefined): boolean => actionId !== undefined && IDS.has(actionId)

const isKind = (value: string | undefined): value is ReviewKind => (REVIEW_KINDS as readonly string[]).includes(value ?? '')
/** Slack's view ids (`V…`) and an opaque form id: bounded, since both go back into a call or a query. */
const VIEW_ID = /^V[A-Z0-9]{1,30}$/
const FORM_ID = /^[\w-]{0,200}$/

/**
 * A review action's click of a `block_actions` payload (render-review-actions.ts): the menu's chosen option
 * or the button's value names the action; the message is the container's. Pure; `user` and `trigger` as
 * decode-interaction.ts checked them.
 */
export function decodeReviewAction(payload: unknown, action: unknown, user: string, triggerId: string): ReviewActionClick | 'not_on_a_message' | 'invalid_payload' {
  if (str(payload, 'container', 'type') !== 'message') return 'not_on_a_message'
  const chosen = str(action, 'action_id') === REVIEW_MENU_ACTION ? str(action, 'selected_option', 'value') : str(action, 'value')
  const channel = str(payload, 'container', 'channel_id') ?? ''
  const messageTs = str(payload, 'container', 'message_ts') ?? ''
  if (!isKind(chosen) || channel === '' || messageTs === '') return 'invalid_payload'
  return { action: chosen, user, channel, messageTs, triggerId }
}

/**
 * A `view_submission` of prherald's review modal (docs.slack.dev, "view_submission payload"). Pure. A form id
 * that is malformed is passed on as '' (no form has it), so the person is told it was refused.
 */
export function decodeReviewSubmission(payload: unknown, user: string): ReviewSubmission | 'not_our_view' | 'invalid_payload' {
  if (str(payload, 'view', 'callback_id') !== REVIEW_FORM.callbackId) return 'not_our_view'
  const viewId = str(payload, 'view', 'id') ?? ''
  const metadata = str(payload, 'view', 'private_metadata') ?? ''
  const text = str(at(payload, 'view', 'state', 'values'), REVIEW_FORM.block, REVIEW_FORM.action, 'value') ?? ''
  if (!VIEW_ID.test(viewId) || text.length > REVIEW_FORM.maxLength) return 'invalid_payload'
  return { formId: FORM_ID.test(metadata) ? metadata : '', user, viewId, text: text.trim() }
}
