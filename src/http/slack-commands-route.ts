import { type H3Event, type HTTPResponse } from 'h3'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { isSlackResponseUrl, respondLater } from '../personal/respond-later.ts'
import type { RunCommand } from '../personal/run-command.ts'
import type { CheckSlackIdentity } from '../personal/slack-identity.ts'
import { errorResponse, json } from './respond.ts'
import { createSeenIds, verifiedSlackBody } from './verify-slack-request.ts'

export const SLACK_COMMANDS_PATH = '/webhook/slack/commands'

export interface SlackCommandsDeps {
  signingSecret: string
  run: RunCommand
  identity: CheckSlackIdentity
  /** SLACK_API_URL: a response_url on its origin is Slack's too (a Slack-compatible server). */
  slackApiUrl: string
  logger: Logger
  now?: () => number
}

const ephemeral = (text: string) => json(200, { response_type: 'ephemeral', text })

/**
 * `POST /webhook/slack/commands` (`/prherald`): signature and window first, then the form; the workspace and
 * app checked against the token's; a repeated trigger_id answered without acting again. Quick answers go
 * in the response; the lists are acknowledged at once and sent to the response_url afterwards.
 */
export function createSlackCommandsHandler(deps: SlackCommandsDeps) {
  const now = deps.now ?? Date.now
  const seen = createSeenIds()
  return async (event: H3Event): Promise<HTTPResponse> => {
    try {
      const form = new URLSearchParams((await verifiedSlackBody(event, deps.signingSecret, now())).toString('utf8'))
      // Slack checks the certificate of a command's Request URL with ssl_check=1, unsigned by a user.
      if (form.get('ssl_check') === '1') return json(200, {})
      const verdict = await deps.identity(form.get('team_id') ?? undefined, form.get('api_app_id') ?? undefined)
      if (verdict === 'wrong_workspace') {
        deps.logger.warn('rejected slack command', { reason: 'wrong_workspace', fix: 'the request is signed but names another workspace or app than SLACK_BOT_TOKEN\'s' })
        return ephemeral('This prherald serves another workspace.')
      }
      if (verdict === 'unknown') return ephemeral('prherald cannot reach Slack just now; try again in a minute.')
      const trigger = form.get('trigger_id')
      if (trigger && seen(trigger)) return json(200, {})
      const answer = await deps.run({ userId: form.get('user_id') ?? '', channelId: form.get('channel_id') ?? '', text: form.get('text') ?? '' })
      if ('now' in answer) return ephemeral(answer.now)
      const url = form.get('response_url') ?? ''
      if (!isSlackResponseUrl(url, deps.slackApiUrl)) {
        deps.logger.warn('slack command response_url is not Slack\'s; not answering there', { reason: 'foreign_response_url' })
        return ephemeral('This answer cannot be sent: the request did not come with a Slack response URL.')
      }
      void answer.later()
        .then((text) => respondLater(url, text))
        .then((ok) => { if (!ok) deps.logger.warn('slack command answer refused by its response_url', { reason: 'response_url' }) })
        .catch((error: unknown) => deps.logger.warn('slack command answer failed', errorFields(error)))
      return ephemeral(answer.ack)
    } catch (error) {
      if (isPrheraldError(error)) deps.logger.warn('rejected slack command', { reason: error.code })
      else deps.logger.error('slack command failed', errorFields(error))
      return errorResponse(error)
    }
  }
}
