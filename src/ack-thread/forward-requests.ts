import type { H3Event, HTTPResponse } from 'h3'
import { errorResponse } from '../http/respond.ts'
import { BODY_LIMIT, readRawBody } from '../http/read-raw-body.ts'
import type { ForwardedAnswer, ForwardedRequest } from '../http/answer-forwarded.ts'

export interface Forwarder {
  /** The thread app's handler for every route but the webhooks': the request goes to the main thread's app, its answer comes back. */
  handler(event: H3Event): Promise<Response | HTTPResponse>
  /** The main thread's answer to a forwarded request. */
  answer(message: ForwardedAnswer): void
}

const NO_BODY = new Set(['GET', 'HEAD'])
const NULL_BODY_STATUS = new Set([101, 204, 205, 304])

/**
 * Slack's routes, the health routes, /metrics, the OAuth pages: low in volume, answered by the main thread's
 * app as before (its Slack signature checks, its lane for Slack's bodies, its health sources). The thread
 * reads the body (bounded like any body, BODY_LIMIT) and hands the request over whole; one message each way.
 */
export function createForwarder(post: (request: ForwardedRequest, transfer: ArrayBuffer[]) => void): Forwarder {
  const waiting = new Map<number, (answer: ForwardedAnswer) => void>()
  let next = 0
  return {
    async handler(event) {
      const { method } = event.req
      let body: ArrayBuffer | undefined
      if (!NO_BODY.has(method)) {
        try {
          const bytes = await readRawBody(event, BODY_LIMIT)
          body = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
        } catch (error) {
          // Too large, or the client went away: answered here, as the main thread's route would.
          return errorResponse(error)
        }
      }
      const id = next++
      const answered = new Promise<ForwardedAnswer>((resolve) => waiting.set(id, resolve))
      const url = new URL(event.req.url)
      post({ kind: 'request', id, method, url: url.pathname + url.search, headers: [...event.req.headers], body }, body ? [body] : [])
      const answer = await answered
      const headers = new Headers()
      for (const [name, value] of answer.headers) headers.append(name, value)
      return new Response(method === 'HEAD' || NULL_BODY_STATUS.has(answer.status) ? null : answer.body, { status: answer.status, headers })
    },
    answer(message) {
      const resolve = waiting.get(message.id)
      waiting.delete(message.id)
      resolve?.(message)
    },
  }
}
