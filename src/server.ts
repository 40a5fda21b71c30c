import { H3 } from 'h3'
import type { Provider } from './decode/pull-request-event.ts'
import type { Intake } from './intake/intake.ts'
import type { Logger } from './log/logger.ts'
import { errorFields } from './log/logger.ts'
import { createWebhookHandler } from './http/webhook-route.ts'
import { errorResponse, json } from './http/respond.ts'

export interface AppDeps {
  provider: Provider
  webhookSecrets: readonly string[]
  accept: Intake
  logger: Logger
  bodyLimit?: number
}

/** The HTTP surface. Building it has no side effects; only the configured provider's route exists. */
export function createApp(deps: AppDeps): H3 {
  const app = new H3({
    onError(error) {
      // h3's own HTTP errors (404 for an unknown route, 405) keep their status.
      if (error.status < 500) return
      deps.logger.error('unhandled request error', errorFields(error))
      return errorResponse(error)
    },
  })
  app.get('/healthz', () => json(200, { status: 'ok' }))
  app.post(`/webhook/${deps.provider}`, createWebhookHandler({
    provider: deps.provider,
    secrets: deps.webhookSecrets,
    accept: deps.accept,
    logger: deps.logger,
    bodyLimit: deps.bodyLimit,
  }))
  return app
}
