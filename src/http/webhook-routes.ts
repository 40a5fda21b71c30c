import type { H3 } from 'h3'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { GitHost } from '../hosts/contract.ts'
import type { Intake } from '../intake/intake.ts'
import type { Logger } from '../log/logger.ts'
import { allowMethods } from './allow-methods.ts'
import type { BodyBudget } from './body-budget.ts'
import { createWebhookHandler, type WebhookRouteDeps } from './webhook-route.ts'

/** One configured host's webhook route, `/webhook/<id>`: its own secrets and its own intake. */
export interface HostWebhook {
  host: GitHost
  secrets: readonly string[]
  accept: Intake
}

export interface WebhookRoutesDeps {
  webhooks: readonly HostWebhook[]
  logger: Logger
  bodyLimit?: number | undefined
  /** One budget for every host's route (body-budget.ts). */
  budget: BodyBudget
  /** false while deliveries cannot be stored (the database file vanished). */
  ready: () => boolean
  /** Told what each delivery came to, and on which host's route (the metrics). */
  observe?: ((provider: Provider, ...outcome: Parameters<NonNullable<WebhookRouteDeps['observe']>>) => void) | undefined
}

/**
 * Every configured host's `POST /webhook/<id>` on `app`: on the one event loop's app (src/server.ts), or on
 * the acknowledging thread's (src/ack-thread/), the same routes either way.
 */
export function addWebhookRoutes(app: H3, deps: WebhookRoutesDeps): void {
  for (const { host, secrets, accept } of deps.webhooks) {
    const observe = deps.observe
    app.all(webhookPath(host), allowMethods(['POST'], createWebhookHandler({
      host, secrets, accept, logger: deps.logger, bodyLimit: deps.bodyLimit, budget: deps.budget, ready: deps.ready,
      observe: observe && ((outcome, seconds) => observe(host.id, outcome, seconds)),
    })))
  }
}

/** Where a host's deliveries are sent. */
export function webhookPath(host: Pick<GitHost, 'id'>): string {
  return `/webhook/${host.id}`
}
