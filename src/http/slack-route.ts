import { HTTPResponse, type H3Event } from 'h3'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { str } from '../read-fields.ts'
import type { SlackInbound } from '../inbound/slack-inbound.ts'
import { verifySlackSignature } from '../intake/verify-slack-signature.ts'
import { readRawBody } from './read-raw-body.ts'
import { errorResponse, json } from './respond.ts'

/** Slack's three Request URLs (docs/slack-app.md), one per kind of request. */
export const SLACK_PATHS = {
  interactive: '/webhook/slack/interactions',
  command: '/webhook/slack/commands',
  event: '/webhook/slack/events',
} as const

export type SlackRouteKind = keyof typeof SLACK_PATHS

const NOUN: Record<SlackRouteKind, string> = { interactive: 'interaction', command: 'command', event: 'event' }

/** Slash commands and events are small: Slack's are a few kilobytes; anything bigger is not Slack's. */
export const SLACK_REQUEST_LIMIT = 64 * 1024

export interface SlackRouteDeps {
  kind: SlackRouteKind
  signingSecret: string
  receive: SlackInbound
  logger: Logger
  /** The most a body may hold: Slack's commands and events are a few KB, an interaction up to the webhook limit. */
  bodyLimit: number
  /** Unix milliseconds; tests pass a fixed clock. */
  now?: () => number
}

/**
 * The HTTP receiver of Slack's requests: the body's size, the v0 signature over its exact bytes and the
 * five-minute window (verifiedSlackBody below), then the body decoded and handed to the one inbound pipeline
 * (src/inbound/slack-inbound.ts), whose answer is the 200's body. Slack's own checks of a Request URL
 * (`url_verification`, `ssl_check`) are answered here, after the signature.
 */
export function createSlackRoute(deps: SlackRouteDeps) {
  const now = deps.now ?? Date.now
  const noun = NOUN[deps.kind]
  return async (event: H3Event): Promise<HTTPResponse> => {
    let body: string
    try {
      body = (await verifiedSlackBody(event, deps.signingSecret, now(), deps.bodyLimit)).toString('utf8')
    } catch (error) {
      return refused(deps.logger, noun, error)
    }
    try {
      if (deps.kind === 'interactive') return answer(await deps.receive({ kind: 'interactive', payload: body }), '')
      if (deps.kind === 'command') {
        const form = new URLSearchParams(body)
        if (form.get('ssl_check') === '1') return json(200, {})
        return answer(await deps.receive({ kind: 'command', form }), {})
      }
      const payload = parseEvent(body)
      if (str(payload, 'type') === 'url_verification') return json(200, { challenge: str(payload, 'challenge') ?? '' })
      return answer(await deps.receive({ kind: 'event', payload }), {})
    } catch (error) {
      // Slack turns event delivery off when 5 % of events fail within an hour: one it sent that is not understood is acknowledged.
      if (deps.kind === 'event' && isPrheraldError(error, 'bad_json')) {
        deps.logger.warn('slack event not understood; acknowledged', errorFields(error))
        return json(200, {})
      }
      return refused(deps.logger, noun, error)
    }
  }
}

/** The pipeline's answer as the 200's body; `none` when it has nothing to say (an empty body leaves a message as it is). */
function answer(body: Record<string, unknown> | undefined, none: '' | Record<string, never>): HTTPResponse {
  if (body !== undefined) return json(200, body)
  return none === '' ? new HTTPResponse('', { status: 200 }) : json(200, none)
}

/**
 * The raw body of a request Slack signed, before anything reads it: the size, then the v0 signature over the
 * exact bytes, then the five-minute window (docs/security.md#slack-requests). Throws bad_signature,
 * stale_timestamp or body_too_large.
 */
async function verifiedSlackBody(event: H3Event, secret: string, nowMs: number, limit: number): Promise<Buffer> {
  const body = await readRawBody(event, limit)
  const headers = event.req.headers
  const verdict = verifySlackSignature(secret, { body, timestamp: headers.get('x-slack-request-timestamp'), signature: headers.get('x-slack-signature') }, nowMs)
  if (verdict === 'bad_signature') throw new PrheraldError('bad_signature', 'missing or invalid X-Slack-Signature signature')
  if (verdict === 'stale_timestamp') throw new PrheraldError('stale_timestamp', 'X-Slack-Request-Timestamp is more than five minutes away from this server\'s clock')
  return body
}

function parseEvent(body: string): unknown {
  try {
    return JSON.parse(body) as unknown
  } catch (error) {
    throw new PrheraldError('bad_json', 'the signed body is not JSON', { cause: error })
  }
}

function refused(logger: Logger, noun: string, error: unknown): HTTPResponse {
  const response = errorResponse(error)
  const status = response.status ?? 500
  // A reply to a message still being posted is asked again (thread-reply-event.ts): nothing is wrong.
  if (status >= 500 && !isPrheraldError(error, 'slack_message_pending')) {
    logger.error(`slack ${noun} failed`, { status, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
  } else if (isPrheraldError(error)) {
    // Never the signature, the timestamp's signed body or the payload: the reason is enough to act on.
    logger.warn(`rejected slack ${noun}`, {
      reason: error.code, status,
      fix: error.code === 'stale_timestamp' ? 'check this server\'s clock (NTP); a replayed request is refused on purpose'
        : error.code === 'bad_signature' ? 'SLACK_SIGNING_SECRET must be the Signing Secret under Basic Information in the Slack app' : undefined,
    })
  }
  return response
}
