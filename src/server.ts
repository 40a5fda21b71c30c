import { H3, type HTTPResponse } from 'h3'
import type { Logger } from './log/logger.ts'
import { healthz, readyz, type HealthSources } from './http/health-routes.ts'
import { allowMethods as only } from './http/allow-methods.ts'
import { addWebhookRoutes, type HostWebhook, type WebhookRoutesDeps } from './http/webhook-routes.ts'
import { answerAppError } from './http/app-errors.ts'
import { createSlackRoute, SLACK_PATHS, SLACK_REQUEST_LIMIT, type SlackRouteKind } from './http/slack-route.ts'
import type { SlackInbound } from './inbound/slack-inbound.ts'
import { createBodyBudget, type BodyBudget } from './http/body-budget.ts'
import { createSlackBodyLane, inSlackLane, type SlackBodyLane } from './http/slack-body-lane.ts'
import { BODY_LIMIT } from './http/read-raw-body.ts'
import type { TalkBack } from './talk-back/create-talk-back.ts'
import { oauthRoutes } from './http/oauth-routes.ts'

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
  observe?: WebhookRoutesDeps['observe']
  /** `GET /metrics`, when it is served on this port (not when `server.metrics_listen` gives it its own). */
  metrics?: () => Promise<HTTPResponse>
  /**
   * Slack's HTTP routes (SLACK_SIGNING_SECRET): the signature checked, then the one inbound pipeline, built at
   * the composition root and shared with Socket Mode's receiver (src/service.ts). Absent: no Slack route.
   */
  slack?: { signingSecret: string; receive: SlackInbound }
  /** Talk-back (slack.talk_back on): its `/oauth/<host>/*` pages; `linked` republishes the person's home tab after a link. */
  talkBack?: { service: TalkBack; linked?: ((slackUser: string) => Promise<void>) | undefined } | undefined
}

const ALWAYS_OK: HealthSources = { database: () => 'ok', slack: () => 'ok' }

/** The HTTP surface. Building it has no side effects; only the configured hosts' routes exist. */
export function createApp(deps: AppDeps): H3 {
  const app = new H3({ onError: answerAppError(deps.logger) })
  const health = deps.health ?? ALWAYS_OK
  app.all('/healthz', only(['GET', 'HEAD'], () => healthz(health)))
  app.all('/readyz', only(['GET', 'HEAD'], () => readyz(health)))
  if (deps.metrics) app.all('/metrics', only(['GET', 'HEAD'], deps.metrics))
  // Git-host routes only, and one budget for all of them: Slack's are never shed or kept waiting (it turns event delivery off at 5 % failures).
  addWebhookRoutes(app, {
    webhooks: deps.webhooks, logger: deps.logger, bodyLimit: deps.bodyLimit, budget: deps.budget ?? createBodyBudget(),
    ready: () => health.database() === 'ok', observe: deps.observe,
  })
  // Talk-back's OAuth pages, for the hosts people can link here only (an unknown host is h3's 404).
  if (deps.talkBack) {
    const oauth = oauthRoutes({ talkBack: deps.talkBack.service, logger: deps.logger, linked: deps.talkBack.linked })
    for (const { id } of deps.talkBack.service.linkableHosts()) {
      app.all(`/oauth/${id}/start`, only(['GET'], (event) => oauth.start(event, id)))
      app.all(`/oauth/${id}/callback`, only(['GET'], (event) => oauth.callback(event, id)))
    }
  }
  // Slack's unsigned bodies are bounded by a lane of their own, which cuts the oldest held body for a new one.
  const slackLane = deps.slackLane ?? createSlackBodyLane()
  if (deps.slack) {
    const { signingSecret, receive } = deps.slack
    const route = (kind: SlackRouteKind, bodyLimit: number) => only(['POST'], inSlackLane(slackLane, bodyLimit, createSlackRoute({
      kind, signingSecret, receive, logger: deps.logger, bodyLimit,
    })))
    app.all(SLACK_PATHS.interactive, route('interactive', deps.bodyLimit ?? BODY_LIMIT))
    app.all(SLACK_PATHS.command, route('command', SLACK_REQUEST_LIMIT))
    app.all(SLACK_PATHS.event, route('event', SLACK_REQUEST_LIMIT))
  }
  return app
}
