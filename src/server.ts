import { H3, type H3Event, type HTTPResponse } from 'h3'
import type { Provider } from '../machines/pull-request-event.ts'
import type { Intake } from './intake/intake.ts'
import type { Logger } from './log/logger.ts'
import { errorFields } from './log/logger.ts'
import { healthz, readyz, type HealthSources } from './http/health-routes.ts'
import type { GitHost } from './hosts/contract.ts'
import { createWebhookHandler, type WebhookRouteDeps } from './http/webhook-route.ts'
import type { ClickIntake } from './intake/accept-click.ts'
import type { TokenWorkspace } from './slack/token-workspace.ts'
import { clientErrorResponse, errorResponse, json } from './http/respond.ts'
import { createSlackRoute, SLACK_PATHS, type SlackRouteKind } from './http/slack-route.ts'
import type { HomeClick } from './slack/decode-home-action.ts'
import { createSlackInbound, type SlackInbound, type SlackInboundDeps } from './inbound/slack-inbound.ts'
import type { personalRoutes } from './personal/personal-routes.ts'
import { createBodyBudget, type BodyBudget } from './http/body-budget.ts'
import { createSlackBodyLane, inSlackLane, type SlackBodyLane } from './http/slack-body-lane.ts'
import { BODY_LIMIT } from './http/read-raw-body.ts'
import { SLACK_REQUEST_LIMIT } from './http/verify-slack-request.ts'
import type { TalkBack } from './talk-back/create-talk-back.ts'

/** One configured host's webhook route, `/webhook/<id>`: its own secrets and its own intake. */
export interface HostWebhook {
  host: GitHost
  secrets: readonly string[]
  accept: Intake
}

export interface AppDeps {
  /** A route per configured host. */
  webhooks: readonly HostWebhook[]
  logger: Logger
  bodyLimit?: number
  /** The bytes every unauthenticated webhook body may hold together; the default budget when absent. */
  budget?: BodyBudget
  /** The bytes the bodies of Slack's routes may hold before their signature is checked; the default lane when absent. */
  slackLane?: SlackBodyLane
  /** What /healthz and /readyz report; everything is ok when absent. */
  health?: HealthSources
  /** Told what each delivery came to, and on which host's route (the metrics). */
  observe?: (provider: Provider, ...outcome: Parameters<NonNullable<WebhookRouteDeps['observe']>>) => void
  /** `GET /metrics`, when it is served on this port (not when `server.metrics_listen` gives it its own). */
  metrics?: () => Promise<HTTPResponse>
  /** The "Start review" button's clicks and the token's workspace; with slackPersonal, Slack's routes exist (SLACK_SIGNING_SECRET). */
  slackInteractions?: {
    signingSecret: string | undefined; accept: ClickIntake; workspace: () => Promise<TokenWorkspace | undefined>; home?: ((click: HomeClick) => Promise<void>) | undefined
    /** The review actions' modal (talk-back's `reviews: on`); absent, their clicks are not acted on. */
    reviews?: SlackInboundDeps['reviews']
  }
  /** `/prherald`, the Events API and the home tab (docs/notifications.md), and the store's record of Slack's requests. */
  slackPersonal?: ReturnType<typeof personalRoutes>
  /** Talk-back (docs/talk-back.md): the OAuth routes and Slack's handlers; absent when slack.talk_back turns nothing on. */
  talkBack?: TalkBack | undefined
}

const ALWAYS_OK: HealthSources = { database: () => 'ok', slack: () => 'ok' }

/**
 * A route that exists answers any other method with 405 and the `Allow` header (RFC 9110), not 404: the
 * path is right, and the status says what to change.
 */
function only(allow: readonly string[], handler: (event: H3Event) => HTTPResponse | Promise<HTTPResponse>) {
  return (event: H3Event) => allow.includes(event.req.method)
    ? handler(event)
    : json(405, { error: 'method_not_allowed', message: `${event.req.method} is not allowed here; use ${allow.join(' or ')}` }, { allow: allow.join(', ') })
}

/** The HTTP surface. Building it has no side effects; only the configured hosts' routes exist. */
export function createApp(deps: AppDeps): H3 {
  const app = new H3({
    onError(error, event) {
      // h3's own HTTP errors (404 for an unknown route) keep their status, in our body's shape.
      if (error.status < 500) return clientErrorResponse(error, event)
      deps.logger.error('unhandled request error', { kind: error.name, ...errorFields(error), status: error.status })
      return errorResponse(error)
    },
  })
  const health = deps.health ?? ALWAYS_OK
  app.all('/healthz', only(['GET', 'HEAD'], () => healthz(health)))
  app.all('/readyz', only(['GET', 'HEAD'], () => readyz(health)))
  if (deps.metrics) app.all('/metrics', only(['GET', 'HEAD'], deps.metrics))
  // Git-host routes only, and one budget for all of them: Slack's are never shed or kept waiting (it turns event delivery off at 5 % failures).
  const budget = deps.budget ?? createBodyBudget()
  for (const { host, secrets, accept } of deps.webhooks) {
    const observe = deps.observe
    app.all(webhookPath(host), only(['POST'], createWebhookHandler({
      host, secrets, accept, logger: deps.logger, bodyLimit: deps.bodyLimit, budget,
      ready: () => health.database() === 'ok',
      observe: observe && ((outcome, seconds) => observe(host.id, outcome, seconds)),
    })))
  }
  // Slack's unsigned bodies are bounded by a lane of their own, which cuts the oldest held body for a new one.
  const slackLane = deps.slackLane ?? createSlackBodyLane()
  const receive = slackInbound(deps, () => health.database() === 'ok')
  // The HTTP routes only with SLACK_SIGNING_SECRET; with Socket Mode alone, Slack's requests come over the socket.
  const signingSecret = deps.slackInteractions?.signingSecret
  if (receive && signingSecret !== undefined) {
    const route = (kind: SlackRouteKind, bodyLimit: number) => only(['POST'], inSlackLane(slackLane, bodyLimit, createSlackRoute({
      kind, signingSecret, receive, logger: deps.logger, bodyLimit,
    })))
    app.all(SLACK_PATHS.interactive, route('interactive', deps.bodyLimit ?? BODY_LIMIT))
    app.all(SLACK_PATHS.command, route('command', SLACK_REQUEST_LIMIT))
    app.all(SLACK_PATHS.event, route('event', SLACK_REQUEST_LIMIT))
  }
  return app
}

/**
 * The one inbound pipeline of Slack's requests (src/inbound/slack-inbound.ts), for the HTTP routes above and
 * for Socket Mode's receiver (src/inbound/slack-socket.ts); undefined when the deployment takes none of them.
 */
export function slackInbound(deps: Pick<AppDeps, 'slackInteractions' | 'slackPersonal' | 'logger' | 'talkBack'>, ready?: () => boolean): SlackInbound | undefined {
  const { slackInteractions: clicks, slackPersonal: personal } = deps
  if (!clicks || !personal) return undefined
  return createSlackInbound({
    workspace: clicks.workspace, requests: personal.requests, ready, click: clicks.accept, home: clicks.home, reviews: clicks.reviews,
    run: personal.run, publishHome: personal.publishHome, slackApiUrl: personal.slackApiUrl, logger: deps.logger, talkBack: deps.talkBack,
  })
}

/** Where a host's deliveries are sent. */
export function webhookPath(host: Pick<GitHost, 'id'>): string {
  return `/webhook/${host.id}`
}
