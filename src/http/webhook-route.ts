import type { H3Event, HTTPResponse } from 'h3'
import type { GitHost } from '../hosts/contract.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { Intake } from '../intake/intake.ts'
import type { Logger } from '../log/logger.ts'
import { deliveryBody } from '../intake/duplicate-reason.ts'
import { intakeOutcome, rejectedOutcome, type DeliveryOutcome } from '../metrics/delivery-outcome.ts'
import type { BodyBudget } from './body-budget.ts'
import { clipHeader } from './clip-header.ts'
import { BODY_LIMIT, readRawBody } from './read-raw-body.ts'
import { errorResponse, json } from './respond.ts'

export interface WebhookRouteDeps {
  host: GitHost
  secrets: readonly string[]
  accept: Intake
  logger: Logger
  bodyLimit?: number
  /** Bounds the bytes all unauthenticated bodies hold together (body-budget.ts); none when absent. */
  budget?: BodyBudget
  /** false while deliveries cannot be stored (the database file vanished): they are refused with 503. */
  ready?: () => boolean
  /** Told what each delivery came to and how many seconds its answer took (the metrics). */
  observe?: (outcome: DeliveryOutcome, seconds: number) => void
}

/** `POST /webhook/<host>`: raw bytes → the host's authentication → JSON.parse → the host's decoder → intake, then 200. */
export function createWebhookHandler(deps: WebhookRouteDeps) {
  const { host } = deps
  const reader = host.delivery
  const eventHeader = reader.headers.event
  const provider = host.id
  return async (event: H3Event): Promise<HTTPResponse> => {
    const started = performance.now()
    const answer = (response: HTTPResponse, outcome: DeliveryOutcome) => {
      deps.observe?.(outcome, (performance.now() - started) / 1000)
      return response
    }
    const headers = event.req.headers
    // For log lines only, and read before authentication: cut to a short length (clip-header.ts).
    const deliveryHeader = clipHeader(headers.get(reader.headers.delivery))
    const refused = () => new PrheraldError('bad_signature', `missing or invalid ${reader.headers.auth}`)
    try {
      if (reader.authenticateHeaders && !reader.authenticateHeaders(deps.secrets, headers)) throw refused()
      const limit = deps.bodyLimit ?? BODY_LIMIT
      const declared = Number(headers.get('content-length') ?? Number.NaN)
      // Admitted for what it says it is (a chunked body: the limit); authenticated or not, then given back.
      // A client that goes away while it waits leaves the queue (its signal aborts when the socket closes).
      const release = await deps.budget?.admit(declared >= 0 && declared <= limit ? declared : limit, event.req.signal)
      let body: Buffer
      let authentic: boolean
      try {
        body = await readRawBody(event, limit)
        authentic = reader.authenticate(deps.secrets, headers, body)
      } finally {
        release?.()
      }
      if (!authentic) throw refused()
      let payload: unknown
      try {
        payload = JSON.parse(body.toString('utf8'))
      } catch (cause) {
        throw new PrheraldError('bad_json', 'the signed body is not valid JSON', { cause })
      }
      if (deps.ready && !deps.ready()) {
        throw new PrheraldError('database_gone', 'the database file is gone; deliveries cannot be stored until prherald is restarted on it', {
          fix: 'put the database file back and restart prherald (see the server log); redeliver this delivery afterwards',
        })
      }
      const eventName = reader.eventName(headers)
      const deliveryId = reader.deliveryId(headers, body)
      const result = await deps.accept(reader.decode(eventName, deliveryId, payload), deliveryId, deliveryBody(body, deliveryId))
      if (eventName === '') {
        // Still ignored as before (what is it about?), but say which header was missing: a proxy that strips it
        // would otherwise look like a host sending events prherald does not know.
        deps.logger.warn('webhook delivery without its event header', {
          header: eventHeader, provider, delivery_id: deliveryHeader,
          fix: `${host.words.name} always sends ${eventHeader}; check that no proxy in front of prherald drops it`,
        })
        return answer(json(200, { ...result, missing_header: eventHeader }), intakeOutcome(result))
      }
      return answer(json(200, result), intakeOutcome(result))
    } catch (error) {
      const response = errorResponse(error)
      const status = response.status ?? 500
      const facts = { status, provider, event: clipHeader(headers.get(eventHeader)), delivery_id: deliveryHeader }
      if (isPrheraldError(error) && error.code === 'client_aborted') {
        // Not the service's failure: the client went away (or was dropped for trickling) before its body ended.
        deps.logger.info('webhook client went away', { provider, event: facts.event, delivery_id: deliveryHeader })
      } else if (status >= 500) {
        // Every 5xx leaves a line: the answer only says "see the server log". The error's kind and message,
        // never the body, the signature or a secret.
        deps.logger.error('webhook delivery failed', {
          ...facts,
          kind: isPrheraldError(error) ? error.code : error instanceof Error ? error.name : typeof error,
          error: error instanceof Error ? error.message : String(error),
          fix: isPrheraldError(error) ? error.fix : undefined,
        })
      } else if (isPrheraldError(error)) {
        // One line per refused delivery, so a secret mismatch shows in our logs, not only in the git host's
        // delivery log. Headers only: never the signature value or the body.
        deps.logger.warn('rejected webhook delivery', { reason: error.code, ...facts })
      }
      return answer(response, rejectedOutcome(error))
    }
  }
}
