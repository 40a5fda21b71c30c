import type { H3Event, HTTPResponse } from 'h3'
import type { Provider } from '../decode/pull-request-event.ts'
import { DELIVERY_HEADERS, decodeDelivery, deliveryIdOf } from '../decode/decode-delivery.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { Intake } from '../intake/intake.ts'
import { verifySignature } from '../intake/verify-signature.ts'
import type { Logger } from '../log/logger.ts'
import { readRawBody } from './read-raw-body.ts'
import { errorResponse, json } from './respond.ts'

export interface WebhookRouteDeps {
  provider: Provider
  secrets: readonly string[]
  accept: Intake
  logger: Logger
  bodyLimit?: number
}

/** `POST /webhook/<provider>`: raw bytes → HMAC → JSON.parse → decode → intake, then 200. */
export function createWebhookHandler(deps: WebhookRouteDeps) {
  const headerNames = DELIVERY_HEADERS[deps.provider]
  return async (event: H3Event): Promise<HTTPResponse> => {
    try {
      const body = await readRawBody(event, deps.bodyLimit)
      const headers = event.req.headers
      if (!verifySignature(deps.secrets, body, headers.get(headerNames.signature))) {
        throw new PrheraldError('bad_signature', `missing or invalid ${headerNames.signature} signature`)
      }
      let payload: unknown
      try {
        payload = JSON.parse(body.toString('utf8'))
      } catch (cause) {
        throw new PrheraldError('bad_json', 'the signed body is not valid JSON', { cause })
      }
      const eventName = headers.get(headerNames.event)?.trim() ?? ''
      const deliveryId = deliveryIdOf(deps.provider, headers, body)
      const result = await deps.accept(decodeDelivery(deps.provider, eventName, deliveryId, payload), deliveryId)
      return json(200, result)
    } catch (error) {
      const response = errorResponse(error)
      // One line per refused delivery, so a secret mismatch shows in our logs, not only in the git host's
      // delivery log. Headers only: never the signature value or the body.
      if (isPrheraldError(error) && (response.status ?? 500) < 500) {
        const headers = event.req.headers
        deps.logger.warn('rejected webhook delivery', {
          reason: error.code, status: response.status, provider: deps.provider,
          event: headers.get(headerNames.event) ?? undefined, delivery_id: headers.get(headerNames.delivery) ?? undefined,
        })
      }
      return response
    }
  }
}
