import { HTTPResponse, type H3Event } from 'h3'
import { decodeInteraction, type ClickOrigin } from '../slack/decode-interaction.ts'
import type { HomeClick } from '../slack/decode-home-action.ts'
import { foreignOrigin } from '../slack/foreign-origin.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { ClickIntake } from '../intake/accept-click.ts'
import { verifySlackSignature } from '../intake/verify-slack-signature.ts'
import type { Logger } from '../log/logger.ts'
import { readRawBody } from './read-raw-body.ts'
import { errorResponse } from './respond.ts'

export const SLACK_INTERACTIONS_PATH = '/webhook/slack/interactions'

export interface SlackInteractionsDeps {
  signingSecret: string
  accept: ClickIntake
  /** A home tab's preference click, its owner's own (stored, then the tab republished); absent: none are acted on. */
  home?: ((click: HomeClick) => Promise<void>) | undefined
  logger: Logger
  bodyLimit?: number
  /** false while clicks cannot be stored (the database file vanished): they are refused with 503. */
  ready?: () => boolean
  /** Unix milliseconds; tests pass a fixed clock. */
  now?: () => number
  /**
   * The workspace and app SLACK_BOT_TOKEN belongs to (auth.test); undefined while Slack has not said. One app's
   * signing secret signs its clicks in every workspace it is installed in: only this one's count.
   */
  workspace: () => Promise<{ teamId: string; appId: string | undefined } | undefined>
}

/** Slack takes any 200 as the acknowledgement; an empty body leaves the message as it is. */
const ACK = () => new HTTPResponse('', { status: 200 })

/**
 * `POST /webhook/slack/interactions`: raw bytes → Slack's v0 signature and timestamp → form field `payload`
 * → JSON → decode → intake (durable), then 200. The message is changed afterwards, in the pull request's
 * mailbox: the answer waits only for one SQLite write, well inside Slack's 3 seconds.
 */
export function createSlackInteractionsHandler(deps: SlackInteractionsDeps) {
  const now = deps.now ?? Date.now
  return async (event: H3Event): Promise<HTTPResponse> => {
    const headers = event.req.headers
    try {
      const body = await readRawBody(event, deps.bodyLimit)
      const verdict = verifySlackSignature(deps.signingSecret, {
        body, timestamp: headers.get('x-slack-request-timestamp'), signature: headers.get('x-slack-signature'),
      }, now())
      if (verdict === 'bad_signature') throw new PrheraldError('bad_signature', 'missing or invalid X-Slack-Signature signature')
      if (verdict === 'stale_timestamp') {
        throw new PrheraldError('stale_timestamp', 'X-Slack-Request-Timestamp is more than five minutes away from this server\'s clock')
      }
      const decoded = decodeInteraction(body.toString('utf8'))
      if ('ignored' in decoded) {
        if (decoded.ignored === 'invalid_payload') throw new PrheraldError('bad_json', 'the signed body carries no valid interaction payload')
        deps.logger.info('ignored slack interaction', { reason: decoded.ignored })
        return ACK()
      }
      const foreign = await foreignClick(deps, decoded.origin)
      if (foreign) {
        deps.logger.warn('rejected slack interaction', { reason: foreign, team_id: decoded.origin.teamId, app_id: decoded.origin.appId })
        return ACK()
      }
      if (deps.ready && !deps.ready()) {
        throw new PrheraldError('database_gone', 'the database file is gone; clicks cannot be stored until prherald is restarted on it', {
          fix: 'put the database file back and restart prherald (see the server log)',
        })
      }
      if ('home' in decoded) {
        // One person's home tab changes only their own preferences, whoever else's view the payload names.
        if (decoded.home.user !== decoded.home.owner) deps.logger.warn('rejected slack interaction', { reason: 'not_the_view_owner', slack_user: decoded.home.user })
        else if (deps.home) await deps.home(decoded.home)
        else deps.logger.info('ignored slack interaction', { reason: 'home_tab_off' })
        return ACK()
      }
      await deps.accept(decoded.click)
      return ACK()
    } catch (error) {
      const response = errorResponse(error)
      const status = response.status ?? 500
      if (status >= 500) {
        deps.logger.error('slack interaction failed', {
          status, kind: isPrheraldError(error) ? error.code : error instanceof Error ? error.name : typeof error,
          error: error instanceof Error ? error.message : String(error), fix: isPrheraldError(error) ? error.fix : undefined,
        })
      } else if (isPrheraldError(error)) {
        // Never the signature, the timestamp's signed body or the payload: the reason is enough to act on.
        deps.logger.warn('rejected slack interaction', {
          reason: error.code, status,
          fix: error.code === 'stale_timestamp' ? 'check this server\'s clock (NTP); a replayed request is refused on purpose'
            : error.code === 'bad_signature' ? 'SLACK_SIGNING_SECRET must be the Signing Secret under Basic Information in the Slack app' : undefined,
        })
      }
      return response
    }
  }
}

/** Why a signed click is not from the token's own workspace and app, if it is not. */
async function foreignClick(deps: SlackInteractionsDeps, origin: ClickOrigin): Promise<string | undefined> {
  const own = await deps.workspace()
  if (!own) return 'workspace_unknown'
  return foreignOrigin(own, origin)
}
