import { createHmac, randomBytes } from 'node:crypto'
import { START_REVIEW_ACTION } from '../../src/slack/decode-interaction.ts'
import type { HomeView, SlackMessageState } from './fake-slack.ts'

export const TEST_SLACK_SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5'

/**
 * A `block_actions` payload as Slack sends it for a click on a message's button (the shape of docs.slack.dev's
 * "block_actions payload" reference), with only what a scenario changes: who clicked, the button's value, and
 * the message it sits on.
 */
export function clickPayload(options: { user: string; value: string; channel?: string; messageTs?: string; actionId?: string; url?: string }): Record<string, unknown> {
  const channel = options.channel ?? 'C0000000001'
  const ts = options.messageTs ?? '1700000000.000100'
  return {
    type: 'block_actions',
    user: { id: options.user, username: options.user.toLowerCase(), name: options.user.toLowerCase(), team_id: 'T0ACME' },
    api_app_id: 'A0PRHERALD',
    token: 'legacy-verification-token-unused',
    container: { type: 'message', message_ts: ts, channel_id: channel, is_ephemeral: false },
    trigger_id: `${Date.now()}.1379717998065.${randomBytes(16).toString('hex')}`,
    team: { id: 'T0ACME', domain: 'acme' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel, name: 'reviews' },
    message: { type: 'message', ts, bot_id: 'B0000BOT01', text: 'PR', blocks: [] },
    response_url: 'https://hooks.slack.com/actions/T0ACME/1/abc',
    actions: [{
      type: 'button', action_id: options.actionId ?? START_REVIEW_ACTION, block_id: 'prherald_review',
      text: { type: 'plain_text', text: 'Start review', emoji: true },
      value: options.value, ...(options.url ? { url: options.url } : {}),
      action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
    }],
  }
}

export interface InteractionOptions {
  secret?: string
  /** Unix seconds; now by default. */
  timestamp?: number
  /** Replace or drop (undefined) headers after signing. */
  headers?: Record<string, string | undefined>
}

/**
 * X-Slack-Signature as Slack computes it ("Verifying requests from Slack": the HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` keyed with the signing secret, hex, prefixed `v0=`), written here
 * with node:crypto rather than taken from src/; test/intake/verify-slack-signature.test.ts holds it to Slack's
 * worked example.
 */
export function signSlackBody(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`
}

/** The body and headers Slack sends to the Interactivity request URL: the payload form-encoded, signed v0. */
export function signedInteraction(payload: unknown, options: InteractionOptions = {}): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString()
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000))
  const merged: Record<string, string | undefined> = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': signSlackBody(options.secret ?? TEST_SLACK_SIGNING_SECRET, timestamp, body),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    ...options.headers,
  }
  const headers = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined))
  return { body, headers }
}

export async function sendInteraction(baseUrl: string, payload: unknown, options: InteractionOptions = {}): Promise<Response> {
  const { body, headers } = signedInteraction(payload, options)
  return fetch(`${baseUrl}/webhook/slack/interactions`, { method: 'POST', headers, body })
}

/** The "Start review" button of a message as the fake Slack holds it, if it has one. */
export function reviewButton(message: SlackMessageState): { value: string; url?: string; action_id: string } | undefined {
  for (const block of message.blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>) {
    if (block.type !== 'actions') continue
    const button = block.elements?.find((e) => e.type === 'button')
    if (button) return button as { value: string; url?: string; action_id: string }
  }
  return undefined
}

/** Clicks a message's button as `user` would in Slack: the payload names the button's value and the message. */
export async function clickStartReview(baseUrl: string, message: SlackMessageState, user: string, options: InteractionOptions = {}): Promise<Response> {
  const button = reviewButton(message)
  if (!button) throw new Error('the message has no Start review button')
  return sendInteraction(baseUrl, clickPayload({ user, value: button.value, channel: message.channel, messageTs: message.ts, url: button.url }), options)
}

/** The buttons of a published home tab: each section's accessory and each actions block's elements. */
export function homeButtons(view: HomeView): Array<{ action_id: string; value: string; text: { text: string } }> {
  return (view.blocks as Array<{ accessory?: { type: string }; elements?: Array<{ type: string }> }>)
    .flatMap((b) => [b.accessory, ...(b.elements ?? [])])
    .filter((e): e is { type: string } => e?.type === 'button') as unknown as Array<{ action_id: string; value: string; text: { text: string } }>
}

/**
 * A click on a home tab's button as Slack sends it (docs.slack.dev "block_actions payload", from a view): the
 * container is the view, and the view comes back as published, its private_metadata included.
 */
export function homeClickPayload(options: { user: string; view: HomeView; actionId: string; team?: string }): Record<string, unknown> {
  const button = homeButtons(options.view).find((b) => b.action_id === options.actionId)
  if (!button) throw new Error(`the home tab has no ${options.actionId} button`)
  const team = options.team ?? 'T0ACME'
  return {
    type: 'block_actions',
    user: { id: options.user, username: options.user.toLowerCase(), name: options.user.toLowerCase(), team_id: team },
    api_app_id: 'A0PRHERALD',
    token: 'legacy-verification-token-unused',
    container: { type: 'view', view_id: 'V0HOME' },
    trigger_id: `${Date.now()}.1379717998065.${randomBytes(16).toString('hex')}`,
    team: { id: team, domain: 'acme' },
    enterprise: null,
    is_enterprise_install: false,
    view: {
      id: 'V0HOME', team_id: team, type: options.view.type, blocks: options.view.blocks, private_metadata: options.view.private_metadata ?? '',
      callback_id: '', state: { values: {} }, hash: '1700000000.abcdef', clear_on_close: false, notify_on_close: false,
      close: null, submit: null, previous_view_id: null, root_view_id: 'V0HOME', app_id: 'A0PRHERALD', external_id: '', app_installed_team_id: team, bot_id: 'B0000BOT01',
    },
    actions: [{ ...button, block_id: 'home', action_ts: `${Math.floor(Date.now() / 1000)}.000200` }],
  }
}
