import { HTTPResponse, type H3Event, type HTTPError } from 'h3'
import { isPrheraldError, type ErrorCode } from '../errors.ts'

const STATUS: Partial<Record<ErrorCode, number>> = {
  body_too_large: 413,
  bad_signature: 401,
  stale_timestamp: 401,
  bad_json: 400,
  // Nobody reads this answer (the client is gone); 400 keeps it out of the 5xx the service answers for.
  client_aborted: 400,
  // Shed before reading: the git host shows a failed delivery, and reconcile or a redelivery recovers it.
  server_busy: 503,
  // The database cannot take the delivery now; the git host shows the failure and can redeliver it.
  database_busy: 503,
  database_gone: 503,
  // Slack sends an event again when it is not answered 200: by then the post's ts is stored.
  slack_message_pending: 503,
}

/**
 * h3's HTTPResponse, not the global Response: a web Response wraps its body in a ReadableStream that the
 * Node adapter then pumps out chunked, which cost more than all of our own work on an acknowledgement.
 * This one is written with a content-length in one go.
 */
export function json(status: number, body: unknown, headers?: Record<string, string>): HTTPResponse {
  return new HTTPResponse(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })
}

/** The only place an error becomes an HTTP status. Unknown errors are 500 without detail. */
export function errorResponse(error: unknown): HTTPResponse {
  if (isPrheraldError(error)) {
    const status = STATUS[error.code]
    if (status !== undefined) {
      // A body over the limit is not read to its end; closing the connection spares both sides.
      const headers: Record<string, string> | undefined = status === 413 || error.code === 'server_busy' ? { connection: 'close' } : undefined
      return json(status, { error: error.code, message: error.message }, headers)
    }
  }
  return json(500, { error: 'internal', message: 'internal error; see the server log' })
}

/** The codes of h3's own errors, named as ours are. */
const HTTP_CODES: Record<number, string> = { 400: 'bad_request', 404: 'not_found', 405: 'method_not_allowed', 413: 'body_too_large' }

/**
 * h3's own client errors (an unknown route's 404, a malformed URL's 400) in the shape of every other answer,
 * `{ error, message }`, never h3's `{ status, message }`, and never a stack. Its headers are kept.
 */
export function clientErrorResponse(error: HTTPError, event: H3Event): HTTPResponse {
  const code = HTTP_CODES[error.status] ?? `http_${error.status}`
  const message = error.status === 404 ? `no route for ${event.req.method} ${event.url.pathname}` : error.message
  return json(error.status, { error: code, message }, error.headers ? Object.fromEntries(error.headers) : undefined)
}
