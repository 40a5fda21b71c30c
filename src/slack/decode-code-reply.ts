import { at, str } from '../read-fields.ts'
import { decodeCodeReplyValue, type CodeThreadTarget } from './code-reply-value.ts'
import { CODE_REPLY_ACTION } from './render-mirrored-comment.ts'

/** The code-reply modal's `callback_id`, and where its text field sits in `view.state.values`. */
export const CODE_REPLY_FORM = { callbackId: 'prherald_code_reply', block: 'reply_text', action: 'text', maxLength: 3000 } as const

/** A click on a mirrored code comment's Reply button: the code thread (the button's value), who, the trigger. */
export interface CodeReplyClick {
  target: CodeThreadTarget
  user: string
  triggerId: string
}

/** The code-reply modal submitted: its target (its private_metadata, decoded again), who, the view, the text. */
export interface CodeReplySubmission {
  target: CodeThreadTarget
  user: string
  viewId: string
  text: string
}

export const isCodeReplyAction = (actionId: string | undefined): boolean => actionId === CODE_REPLY_ACTION

const VIEW_ID = /^V[A-Z0-9]{1,30}$/

/** The Reply button's click (render-mirrored-comment.ts). Pure; `user` and `trigger` as decode-interaction.ts checked them. */
export function decodeCodeReplyAction(action: unknown, user: string, triggerId: string): CodeReplyClick | 'invalid_payload' {
  const target = decodeCodeReplyValue(str(action, 'value') ?? '')
  return target ? { target, user, triggerId } : 'invalid_payload'
}

/**
 * A `view_submission` of the code-reply modal (docs.slack.dev, "view_submission payload"): `private_metadata`
 * is what prherald set at views.open (Slack sends it back as set); it is decoded again, never taken as is. Pure.
 */
export function decodeCodeReplySubmission(payload: unknown, user: string): CodeReplySubmission | 'not_our_view' | 'invalid_payload' {
  if (str(payload, 'view', 'callback_id') !== CODE_REPLY_FORM.callbackId) return 'not_our_view'
  const viewId = str(payload, 'view', 'id') ?? ''
  const target = decodeCodeReplyValue(str(payload, 'view', 'private_metadata') ?? '')
  const text = str(at(payload, 'view', 'state', 'values'), CODE_REPLY_FORM.block, CODE_REPLY_FORM.action, 'value') ?? ''
  if (!VIEW_ID.test(viewId) || !target || text.length > CODE_REPLY_FORM.maxLength) return 'invalid_payload'
  return { target, user, viewId, text: text.trim() }
}
