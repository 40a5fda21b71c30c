import { createHmac, randomUUID } from 'node:crypto'
import type { Provider } from '../../machines/pull-request-event.ts'

export const TEST_SECRET = 'test-webhook-secret-0f9d2c'
export const TEST_SLACK_TOKEN = 'xoxb-test-token-7a1e5b'

export interface DeliveryOptions {
  /** X-GitHub-Event, X-Event-Key or X-Gitlab-Event. */
  event: string
  payload: unknown
  deliveryId?: string
  secret?: string
  /** Override or remove (undefined) any header. */
  headers?: Record<string, string | undefined>
  attempt?: number
}

/**
 * The `sha256=<hex>` signature GitHub (X-Hub-Signature-256) and Bitbucket Cloud (X-Hub-Signature) send: the
 * HMAC-SHA256 of the raw body keyed with the webhook's secret, in lower-case hex. Written here with node:crypto,
 * not taken from src/, so a delivery the tests sign does not check the product against itself; the hosts'
 * published examples pin both sides (test/git-host/verify-signature.test.ts).
 */
export function signWebhookBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/** Headers and body of a delivery exactly as GitHub, Bitbucket Cloud or GitLab sign (or token) and send it. */
export function signedDelivery(provider: Provider, options: DeliveryOptions): { body: string; headers: Record<string, string> } {
  const body = typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload)
  const signature = signWebhookBody(options.secret ?? TEST_SECRET, body)
  const id = options.deliveryId ?? randomUUID()
  const base: Record<string, string | undefined> = provider === 'github'
    ? { 'x-github-event': options.event, 'x-github-delivery': id, 'x-hub-signature-256': signature, 'user-agent': 'GitHub-Hookshot/test' }
    : provider === 'gitlab'
      // GitLab sends the secret itself; X-Gitlab-Event-UUID is new on every request, Idempotency-Key is kept across resends.
      ? { 'x-gitlab-event': options.event, 'idempotency-key': id, 'x-gitlab-token': options.secret ?? TEST_SECRET, 'x-gitlab-event-uuid': randomUUID(), 'user-agent': 'GitLab/17.4.0' }
      : { 'x-event-key': options.event, 'x-request-uuid': id, 'x-hub-signature': signature, 'x-attempt-number': String(options.attempt ?? 1), 'user-agent': 'Bitbucket-Webhooks/2.0' }
  const merged = { 'content-type': 'application/json', ...base, ...options.headers }
  const headers = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined))
  return { body, headers }
}

export async function deliver(baseUrl: string, provider: Provider, options: DeliveryOptions): Promise<Response> {
  const { body, headers } = signedDelivery(provider, options)
  return fetch(`${baseUrl}/webhook/${provider}`, { method: 'POST', headers, body })
}
