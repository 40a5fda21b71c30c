import type { H3 } from 'h3'
import type { Logger } from '../log/logger.ts'
import { errorResponse } from './respond.ts'

/** A request another thread's listener took and hands over whole (src/ack-thread/): its body read, bounded. */
export interface ForwardedRequest {
  kind: 'request'
  id: number
  method: string
  /** Path and query, as received. */
  url: string
  headers: Array<[string, string]>
  body: ArrayBuffer | undefined
}

export interface ForwardedAnswer {
  kind: 'answer'
  id: number
  status: number
  headers: Array<[string, string]>
  body: ArrayBuffer
}

/**
 * The main thread's side of a forwarded request: rebuilt as a web Request and answered by the app
 * (src/server.ts) without a listener of its own. h3 v2's app is fetch-based: "Since h3 v2 you can directly use
 * `app.fetch(request, init?, context?)`" (h3's own declarations, dist/index.d.mts, on toWebHandler); the
 * routes read the body from `event.req` when no Node request is behind it (read-raw-body.ts).
 */
export async function answerForwarded(app: H3, request: ForwardedRequest, logger: Logger): Promise<ForwardedAnswer> {
  // The body is whole here: its framing header from the client no longer describes it.
  const headers = request.headers.filter(([name]) => name !== 'transfer-encoding')
  // The path as received, after the host: the thread's gate already refused an ambiguous one (refuse-ambiguous-paths.ts).
  // The app answers its own errors (answerAppError); anything thrown on the way there (a request that cannot be built) is answered here.
  const response = await Promise.resolve()
    .then(() => app.fetch(new Request(`http://localhost${request.url}`, { method: request.method, headers, body: request.body ?? null })))
    .catch((error: unknown) => {
      logger.error('a forwarded request failed', { kind: error instanceof Error ? error.name : typeof error, path: request.url.split('?')[0] })
      const failed = errorResponse(error)
      return new Response(failed.body ?? null, { status: failed.status ?? 500, headers: failed.headers })
    })
  // Set-Cookie is the one header that cannot be joined with commas (Headers.getSetCookie keeps each).
  const answer = [...response.headers].filter(([name]) => name !== 'set-cookie')
  for (const cookie of response.headers.getSetCookie()) answer.push(['set-cookie', cookie])
  return { kind: 'answer', id: request.id, status: response.status, headers: answer, body: await response.arrayBuffer() }
}
