import { PrheraldError } from '../errors.ts'
import type { ClickIntake } from '../intake/accept-click.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PublishHome } from '../personal/publish-home.ts'
import { isSlackResponseUrl } from '../personal/respond-later.ts'
import type { RunCommand } from '../personal/run-command.ts'
import { at, str } from '../read-fields.ts'
import type { HomeClick } from '../slack/decode-home-action.ts'
import { decodeInteraction, interactionPayload } from '../slack/decode-interaction.ts'
import { foreignOrigin } from '../slack/foreign-origin.ts'
import { postToResponseUrl } from '../slack/slack-api.ts'
import type { TokenWorkspace } from '../slack/token-workspace.ts'
import type { ThreadReplyEvent } from './thread-reply-event.ts'
import type { SlackRequests } from '../store/store.ts'
import type { ReviewFromSlack } from '../personal/review-from-slack.ts'
import type { CodeThreadReply } from '../personal/code-thread-reply.ts'

/**
 * One request Slack sent, once its receiver authenticated it: the HTTP receiver (size, v0 signature, time
 * window: src/http/slack-route.ts) or the Socket Mode receiver (the connection itself: src/inbound/slack-socket.ts).
 */
export type SlackInboundRequest =
  /** Over HTTP the form body (its `payload` field is the JSON); over Socket Mode the payload itself. */
  | { kind: 'interactive'; payload: unknown }
  | { kind: 'command'; form: URLSearchParams }
  | { kind: 'event'; payload: unknown }

/** What the acknowledgement carries: an HTTP 200's JSON body, or a Socket Mode ack's payload; nothing when undefined. */
export type SlackInboundAnswer = Record<string, unknown> | undefined

export interface SlackInboundDeps {
  /** The workspace and app of SLACK_BOT_TOKEN (auth.test, once): a request naming another is not acted on. */
  workspace: () => Promise<TokenWorkspace | undefined>
  requests: SlackRequests
  /** false while nothing can be stored (the database file vanished): refused with 503 before anything is acted on. */
  ready?: () => boolean
  click: ClickIntake
  /** A `message` event: a reply in a pull request's thread becomes a comment (talk-back); absent, none are acted on. */
  threadReply?: ThreadReplyEvent | undefined
  /** A home tab's preference click; absent, none are acted on. */
  home?: ((click: HomeClick) => Promise<void>) | undefined
  run: RunCommand
  /** Reviews from Slack (the review actions' modal); absent, their clicks and submissions are not acted on. */
  reviews?: Pick<ReviewFromSlack, 'open' | 'submit'> | undefined
  /** Replies to code threads (a mirrored code comment's Reply button and its modal); absent, not acted on. */
  codeReplies?: Pick<CodeThreadReply, 'open' | 'submit'> | undefined
  publishHome: PublishHome
  /** SLACK_API_URL: a response_url on its origin is Slack's too (a Slack-compatible server). */
  slackApiUrl: string
  logger: Logger
}

const ephemeral = (text: string) => ({ response_type: 'ephemeral', text })

/**
 * The one path of Slack's requests, whatever carried them: workspace and app, then Slack's request id
 * committed to the store (an event's event_id, a command's or an action's trigger_id), then a thin handler.
 * A request already taken is acknowledged without acting again; prherald's own events are dropped first.
 */
export function createSlackInbound(deps: SlackInboundDeps) {
  const { logger } = deps
  /** Whether the request may be acted on: its workspace and app are the token's, and its id is new. */
  const admit = async (what: string, origin: { teamId: string | undefined; appId: string | undefined }, requestId: string | undefined): Promise<string | undefined> => {
    const own = await deps.workspace()
    const refused = own ? foreignOrigin(own, origin) : 'workspace_unknown'
    if (refused) {
      logger.warn(`rejected slack ${what}`, { reason: refused, team_id: origin.teamId, app_id: origin.appId })
      return refused
    }
    if (deps.ready && !deps.ready()) {
      throw new PrheraldError('database_gone', 'the database file is gone; Slack\'s requests cannot be stored until prherald is restarted on it', {
        fix: 'put the database file back and restart prherald (see the server log)',
      })
    }
    // Without an id there is nothing to tell a retry by: acted on (a shared '' would make each such request another's retry).
    if (requestId !== undefined && !(await deps.requests.claimSlackRequest(requestId))) {
      logger.info(`ignored slack ${what}`, { reason: 'already_taken' })
      return 'already_taken'
    }
    return undefined
  }
  /**
   * Runs a taken request's handler. One that fails is answered with an error and has not taken effect (or
   * only partly: every handler sets, never toggles, so acting again is safe), so the request is released:
   * Slack's retry is then acted on instead of dropped as already taken.
   */
  const handle = async <T>(requestId: string | undefined, handler: () => Promise<T>): Promise<T> => {
    try {
      return await handler()
    } catch (error) {
      if (requestId !== undefined) {
        await deps.requests.releaseSlackRequest(requestId).catch((released: unknown) =>
          logger.warn('slack request not released after its failure; Slack\'s retry of it will be ignored', errorFields(released)))
      }
      throw error
    }
  }

  const interactive = async (input: unknown): Promise<SlackInboundAnswer> => {
    const payload = interactionPayload(input)
    const decoded = decodeInteraction(payload ?? '')
    if ('ignored' in decoded) {
      if (decoded.ignored === 'invalid_payload') throw new PrheraldError('bad_json', 'the signed body carries no valid interaction payload')
      logger.info('ignored slack interaction', { reason: decoded.ignored })
      return undefined
    }
    const requestId = triggerOf(payload)
    if (await admit('interaction', decoded.origin, requestId)) return undefined
    return handle(requestId, async (): Promise<SlackInboundAnswer> => {
      if ('click' in decoded) return void await deps.click(decoded.click)
      if ('review' in decoded || 'submission' in decoded) {
        if (!deps.reviews) return void logger.info('ignored slack interaction', { reason: 'reviews_off' })
        if ('submission' in decoded) return deps.reviews.submit(decoded.submission)
        return void await deps.reviews.open(decoded.review)
      }
      if ('codeReply' in decoded || 'codeReplySubmission' in decoded) {
        if (!deps.codeReplies) return void logger.info('ignored slack interaction', { reason: 'talk_back_off' })
        if ('codeReplySubmission' in decoded) return deps.codeReplies.submit(decoded.codeReplySubmission)
        return void await deps.codeReplies.open(decoded.codeReply)
      }
      // One person's home tab changes only their own preferences, whoever else's view the payload names.
      if (decoded.home.user !== decoded.home.owner) logger.warn('rejected slack interaction', { reason: 'not_the_view_owner', slack_user: decoded.home.user })
      else if (deps.home) await deps.home(decoded.home)
      else logger.info('ignored slack interaction', { reason: 'home_tab_off' })
      return undefined
    })
  }

  const command = async (form: URLSearchParams): Promise<SlackInboundAnswer> => {
    const requestId = prefixed('trigger', form.get('trigger_id'))
    const refused = await admit('command', { teamId: form.get('team_id') ?? undefined, appId: form.get('api_app_id') ?? undefined }, requestId)
    if (refused === 'workspace_unknown') return ephemeral('prherald cannot reach Slack just now; try again in a minute.')
    if (refused === 'other_workspace' || refused === 'other_app') return ephemeral('This prherald serves another workspace.')
    if (refused) return undefined
    const answer = await handle(requestId, () => deps.run({ userId: form.get('user_id') ?? '', channelId: form.get('channel_id') ?? '', text: form.get('text') ?? '' }))
    if ('now' in answer) return ephemeral(answer.now)
    const url = form.get('response_url') ?? ''
    if (!isSlackResponseUrl(url, deps.slackApiUrl)) {
      logger.warn('slack command response_url is not Slack\'s; not answering there', { reason: 'foreign_response_url' })
      return ephemeral('This answer cannot be sent: the request did not come with a Slack response URL.')
    }
    void answer.later()
      .then((text) => postToResponseUrl(url, ephemeral(text)))
      .then((ok) => { if (!ok) logger.warn('slack command answer refused by its response_url', { reason: 'response_url' }) })
      .catch((error: unknown) => logger.warn('slack command answer failed', errorFields(error)))
    return ephemeral(answer.ack)
  }

  const event = async (payload: unknown): Promise<SlackInboundAnswer> => {
    if (str(payload, 'type') !== 'event_callback') return undefined
    const inner = at(payload, 'event')
    if (isOwnEvent(inner, (await deps.workspace())?.botUserId)) return undefined
    const origin = { teamId: str(payload, 'team_id'), appId: str(payload, 'api_app_id') }
    const requestId = prefixed('event', str(payload, 'event_id'))
    if (await admit('event', origin, requestId)) return undefined
    // Acknowledged only once the reply is stored (its handler awaits the intake's commit).
    if (str(inner, 'type') === 'message' && deps.threadReply) await handle(requestId, () => deps.threadReply!(inner, str(payload, 'event_id'), origin.teamId))
    const user = str(inner, 'user')
    if (str(inner, 'type') === 'app_home_opened' && str(inner, 'tab') !== 'messages' && user) {
      // Published after the ack; it retries and logs its own failures (publish-home.ts), so it never rejects.
      void deps.publishHome(user)
    }
    return undefined
  }

  return async function receive(request: SlackInboundRequest): Promise<SlackInboundAnswer> {
    if (request.kind === 'interactive') return interactive(request.payload)
    if (request.kind === 'command') return command(request.form)
    return event(request.payload)
  }
}

export type SlackInbound = ReturnType<typeof createSlackInbound>

/** `trigger:<id>` / `event:<id>`: an empty or missing id is none (never one shared by every such request). */
const prefixed = (kind: string, id: string | null | undefined) => (id ? `${kind}:${id}` : undefined)
const triggerOf = (payload: unknown) => prefixed('trigger', str(payload, 'trigger_id'))

/**
 * Events prherald caused itself (its bot's messages, the message_changed of its own chat.update): never acted
 * on, never stored. Its messages are known by their `bot_id`, or by its bot user's id when they carry none.
 */
function isOwnEvent(inner: unknown, botUserId: string | undefined): boolean {
  if (str(inner, 'bot_id') !== undefined || str(inner, 'subtype') === 'bot_message') return true
  const subtype = str(inner, 'subtype')
  const author = subtype === 'message_changed' ? str(inner, 'message', 'user') : subtype === 'message_deleted' ? str(inner, 'previous_message', 'user') : str(inner, 'user')
  if (botUserId !== undefined && author === botUserId) return true
  return (subtype === 'message_changed' && str(inner, 'message', 'bot_id') !== undefined)
    || (subtype === 'message_deleted' && str(inner, 'previous_message', 'bot_id') !== undefined)
}
