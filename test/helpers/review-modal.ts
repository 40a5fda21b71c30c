import { randomBytes } from 'node:crypto'
import { REVIEW_FORM } from '../../src/slack/decode-review-action.ts'
import { REVIEW_BUTTON_PREFIX, REVIEW_MENU_ACTION } from '../../src/slack/render-review-actions.ts'

const base = (user: string) => ({
  user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0ACME' },
  api_app_id: 'A0PRHERALD', token: 'legacy-verification-token-unused',
  team: { id: 'T0ACME', domain: 'acme' }, enterprise: null, is_enterprise_install: false,
  trigger_id: `${Date.now()}.1379717998065.${randomBytes(16).toString('hex')}`,
})

/** A click on a message's review action as Slack sends it: the overflow menu's chosen option, or a button. */
export function reviewActionPayload(options: { user: string; channel: string; messageTs: string; action: string; style?: 'menu' | 'buttons' }): Record<string, unknown> {
  const at = { block_id: 'prherald_review', action_ts: `${Math.floor(Date.now() / 1000)}.000200` }
  const action = (options.style ?? 'menu') === 'menu'
    ? { type: 'overflow', action_id: REVIEW_MENU_ACTION, selected_option: { text: { type: 'plain_text', text: options.action }, value: options.action }, ...at }
    : { type: 'button', action_id: `${REVIEW_BUTTON_PREFIX}${options.action}`, text: { type: 'plain_text', text: options.action }, value: options.action, ...at }
  return {
    type: 'block_actions', ...base(options.user),
    container: { type: 'message', message_ts: options.messageTs, channel_id: options.channel, is_ephemeral: false },
    channel: { id: options.channel, name: 'reviews' },
    message: { type: 'message', ts: options.messageTs, bot_id: 'B0000BOT01', text: 'PR', blocks: [] },
    response_url: 'https://hooks.slack.com/actions/T0ACME/1/abc',
    actions: [action],
  }
}

/** A view_submission of a modal as Slack sends it: the view as opened (its private_metadata), the text typed. */
export function viewSubmissionPayload(options: { user: string; viewId: string; view: Record<string, unknown>; text?: string; triggerId?: string }): Record<string, unknown> {
  const value = options.text === undefined ? null : options.text
  return {
    type: 'view_submission', ...base(options.user), ...(options.triggerId ? { trigger_id: options.triggerId } : {}),
    view: {
      ...options.view, id: options.viewId, team_id: 'T0ACME', app_id: 'A0PRHERALD', bot_id: 'B0000BOT01', hash: '1700000000.abcdef',
      root_view_id: options.viewId, previous_view_id: null, external_id: '', clear_on_close: false, notify_on_close: false,
      state: { values: { [REVIEW_FORM.block]: { [REVIEW_FORM.action]: { type: 'plain_text_input', value } } } },
    },
    response_urls: [],
  }
}
