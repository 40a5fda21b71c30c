import type { H3Event, HTTPResponse } from 'h3'
import { json } from './respond.ts'

/**
 * A route that exists answers any other method with 405 and the `Allow` header (RFC 9110), not 404: the
 * path is right, and the status says what to change.
 */
export function allowMethods(allow: readonly string[], handler: (event: H3Event) => HTTPResponse | Promise<HTTPResponse>) {
  return (event: H3Event) => allow.includes(event.req.method)
    ? handler(event)
    : json(405, { error: 'method_not_allowed', message: `${event.req.method} is not allowed here; use ${allow.join(' or ')}` }, { allow: allow.join(', ') })
}
