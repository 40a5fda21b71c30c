import { type H3Event, type HTTPResponse } from 'h3'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PublishHome } from '../personal/publish-home.ts'
import type { CheckSlackIdentity } from '../personal/slack-identity.ts'
import { at, str } from '../read-fields.ts'
import { errorResponse, json } from './respond.ts'
import { createSeenIds, verifiedSlackBody } from './verify-slack-request.ts'

export const SLACK_EVENTS_PATH = '/webhook/slack/events'

export interface SlackEventsDeps {
  signingSecret: string
  identity: CheckSlackIdentity
  publishHome: PublishHome
  logger: Logger
  now?: () => number
}

const OK = () => json(200, {})

/**
 * `POST /webhook/slack/events` (the Events API): the signature and its window before anything, the
 * `url_verification` challenge included; then the workspace and app; a retry (`X-Slack-Retry-Num`) or a
 * repeated `event_id` is acknowledged without acting again. Always 200 once signed, and fast: the work runs
 * after the answer, and Slack turns a subscription off when 5 % of events fail within an hour.
 */
export function createSlackEventsHandler(deps: SlackEventsDeps) {
  const now = deps.now ?? Date.now
  const seen = createSeenIds()
  return async (event: H3Event): Promise<HTTPResponse> => {
    let body: Buffer
    try {
      body = await verifiedSlackBody(event, deps.signingSecret, now())
    } catch (error) {
      if (isPrheraldError(error)) deps.logger.warn('rejected slack event', { reason: error.code })
      return errorResponse(error)
    }
    try {
      const payload = JSON.parse(body.toString('utf8')) as unknown
      const type = str(payload, 'type')
      if (type === 'url_verification') return json(200, { challenge: str(payload, 'challenge') ?? '' })
      if (type !== 'event_callback') return OK()
      const verdict = await deps.identity(str(payload, 'team_id'), str(payload, 'api_app_id'))
      if (verdict !== 'ok') {
        deps.logger.warn('ignored slack event', { reason: verdict })
        return OK()
      }
      // Without an event_id there is nothing to tell a retry by: '' would make every such event another's retry.
      const eventId = str(payload, 'event_id')
      const retry = event.req.headers.get('x-slack-retry-num')
      if (eventId !== undefined && seen(eventId)) {
        deps.logger.info('ignored slack event', { reason: 'retried_event', retry_num: retry ?? undefined })
        return OK()
      }
      const inner = at(payload, 'event')
      const user = str(inner, 'user')
      if (str(inner, 'type') === 'app_home_opened' && str(inner, 'tab') !== 'messages' && user) void deps.publishHome(user)
      return OK()
    } catch (error) {
      deps.logger.warn('slack event not understood; acknowledged', errorFields(error))
      return OK()
    }
  }
}
