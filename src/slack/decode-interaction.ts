import type { ReviewClick } from '../../machines/lifecycle-event.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { HOSTS } from '../hosts/registry.ts'
import { at, str } from '../read-fields.ts'
import { decodeHomeAction, isHomeAction, type HomeClick } from './decode-home-action.ts'
import { decodeReviewAction, decodeReviewSubmission, isReviewAction, type ReviewActionClick, type ReviewSubmission } from './decode-review-action.ts'
import type { SlackOrigin } from './foreign-origin.ts'
import { CODE_REPLY_FORM, decodeCodeReplyAction, decodeCodeReplySubmission, isCodeReplyAction, type CodeReplyClick, type CodeReplySubmission } from './decode-code-reply.ts'

/** The button's `action_id`: what tells prherald's own button from anything else Slack might send. */
export const START_REVIEW_ACTION = 'prherald_start_review'

/** Why a well-signed interaction is not a click prherald acts on; the route answers 200 and logs it. */
export type InteractionIgnored = 'not_a_button_click' | 'not_our_button' | 'not_our_view' | 'not_on_a_message' | 'not_in_a_home_tab' | 'invalid_payload'

/** `origin`: where the click came from, as Slack's signed payload says (checked by foreign-origin.ts). */
export type DecodedInteraction =
  | { click: ReviewClick; origin: SlackOrigin }
  | { home: HomeClick; origin: SlackOrigin }
  /** A review action on a message (Approve, Request changes, Comment) and the review modal's submission: decode-review-action.ts. */
  | { review: ReviewActionClick; origin: SlackOrigin }
  | { submission: ReviewSubmission; origin: SlackOrigin }
  /** A mirrored code comment's Reply button and its modal's submission: decode-code-reply.ts. */
  | { codeReply: CodeReplyClick; origin: SlackOrigin }
  | { codeReplySubmission: CodeReplySubmission; origin: SlackOrigin }
  | { ignored: InteractionIgnored }

/**
 * The value the button carries: the pull request's key (pullRequestKey), e.g. `github:acme/api#42`. The owner
 * may hold slashes (a nested group, `group/subgroup`); the repository, the last segment, never does.
 */
const BUTTON_VALUE = /^([a-z][a-z0-9-]{0,30}):([^#\s]+)\/([^/#\s]+)#(\d{1,9})$/
/** Slack user IDs: `U…`, or `W…` on Enterprise Grid. Checked because the ID is written into mrkdwn. */
const SLACK_USER = /^[UW][A-Z0-9]{2,20}$/
/** Slack's trigger_id, e.g. `1388105719492.1379717998065.9bc1638…`; bounded because it becomes a stored id. */
const TRIGGER_ID = /^[\w.-]{1,200}$/

/**
 * Decodes Slack's interaction request: over HTTP an `application/x-www-form-urlencoded` body whose `payload`
 * field is JSON (docs.slack.dev, "block_actions payload"); over Socket Mode the envelope's payload itself. Only a `block_actions` click on prherald's own buttons counts:
 * "Start review" on a channel message (the pull request from the button's value, the person from `user.id`),
 * or a preference button in a home tab (decode-home-action.ts). Pure; called only after the signature was verified.
 */
export function decodeInteraction(input: string | object): DecodedInteraction {
  const payload = interactionPayload(input)
  if (payload === undefined) return { ignored: 'invalid_payload' }
  const origin: SlackOrigin = { teamId: str(payload, 'team', 'id') ?? str(payload, 'user', 'team_id'), appId: str(payload, 'api_app_id') }
  if (str(payload, 'type') === 'view_submission' && str(payload, 'view', 'callback_id') === CODE_REPLY_FORM.callbackId) {
    const codeReplySubmission = decodeCodeReplySubmission(payload, str(payload, 'user', 'id') ?? '')
    if (typeof codeReplySubmission === 'string') return { ignored: codeReplySubmission }
    return SLACK_USER.test(codeReplySubmission.user) ? { codeReplySubmission, origin } : { ignored: 'invalid_payload' }
  }
  if (str(payload, 'type') === 'view_submission') {
    const submission = decodeReviewSubmission(payload, str(payload, 'user', 'id') ?? '')
    if (typeof submission === 'string') return { ignored: submission }
    return SLACK_USER.test(submission.user) ? { submission, origin } : { ignored: 'invalid_payload' }
  }
  if (str(payload, 'type') !== 'block_actions') return { ignored: 'not_a_button_click' }
  const actions = at(payload, 'actions')
  const action = Array.isArray(actions)
    ? (actions as unknown[]).find((a) => str(a, 'action_id') === START_REVIEW_ACTION || isHomeAction(str(a, 'action_id')) || isReviewAction(str(a, 'action_id')) || isCodeReplyAction(str(a, 'action_id')))
    : undefined
  if (action === undefined) return { ignored: 'not_our_button' }
  if (isReviewAction(str(action, 'action_id'))) {
    const user = str(payload, 'user', 'id') ?? ''
    const trigger = str(payload, 'trigger_id') ?? ''
    if (!SLACK_USER.test(user) || !TRIGGER_ID.test(trigger)) return { ignored: 'invalid_payload' }
    const review = decodeReviewAction(payload, action, user, trigger)
    return typeof review === 'string' ? { ignored: review } : { review, origin }
  }
  if (isCodeReplyAction(str(action, 'action_id'))) {
    const user = str(payload, 'user', 'id') ?? ''
    const trigger = str(payload, 'trigger_id') ?? ''
    if (!SLACK_USER.test(user) || !TRIGGER_ID.test(trigger)) return { ignored: 'invalid_payload' }
    const codeReply = decodeCodeReplyAction(action, user, trigger)
    return typeof codeReply === 'string' ? { ignored: codeReply } : { codeReply, origin }
  }
  if (isHomeAction(str(action, 'action_id'))) {
    const home = decodeHomeAction(payload, action, SLACK_USER)
    return typeof home === 'string' ? { ignored: home } : { home, origin }
  }
  // "Start review" is only ever on prherald's channel messages.
  if (str(payload, 'container', 'type') !== 'message') return { ignored: 'not_on_a_message' }
  const channel = str(payload, 'container', 'channel_id') ?? str(payload, 'channel', 'id') ?? ''
  const messageTs = str(payload, 'container', 'message_ts') ?? str(payload, 'message', 'ts') ?? ''
  const target = BUTTON_VALUE.exec(str(action, 'value') ?? '')
  const user = str(payload, 'user', 'id') ?? ''
  const trigger = str(payload, 'trigger_id') ?? ''
  if (!target || !HOSTS.has(target[1]!) || !SLACK_USER.test(user) || !TRIGGER_ID.test(trigger) || channel === '' || messageTs === '') return { ignored: 'invalid_payload' }
  return {
    origin,
    click: {
      kind: 'review_click',
      provider: target[1] as Provider,
      deliveryId: `slack:${trigger}`,
      owner: target[2]!,
      repo: target[3]!,
      number: Number(target[4]),
      user,
      channel,
      messageTs,
    },
  }
}

/** The payload: a form body's `payload` field as JSON (HTTP), or the object itself (Socket Mode); undefined when there is none. */
export function interactionPayload(input: unknown): object | undefined {
  let payload = input
  try {
    if (typeof input === 'string') payload = JSON.parse(new URLSearchParams(input).get('payload') ?? '') as unknown
  } catch {
    return undefined
  }
  return typeof payload === 'object' && payload !== null ? payload : undefined
}
