import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/**
 * The `fetch` the Slack Web API client is given (its `fetch` option): the one request it makes, a POST of a
 * form with a small JSON answer, over node:http(s) with a keep-alive agent. Node's own `fetch` (undici)
 * builds a Request, Headers, a web stream for each body and an abort chain per call: about 0.3 ms of CPU per
 * Slack call on the bench's two cores, more than the rest of a batch's processing (docs/performance.md).
 * Anything else (a body that is not a string or bytes: a file upload's form; headers that are not
 * a plain object; a URL with credentials in it, which `fetch` refuses) goes to `fetch`.
 *
 * It keeps what the classification of failures reads (src/slack/post-outcome.ts): a network failure is a
 * TypeError "fetch failed" with the socket's error as its cause, as undici's is, and an aborted call rejects
 * with the signal's reason (a TimeoutError), as `fetch` does. The agent honours NODE_USE_ENV_PROXY /
 * --use-env-proxy where this Node supports it, as `fetch` does.
 */
export function createSlackFetch(): typeof fetch {
  const useEnvProxy = process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy')
  const options = { keepAlive: true, ...(useEnvProxy ? { proxyEnv: process.env } : {}) }
  const agents = { 'http:': new HttpAgent(options), 'https:': new HttpsAgent(options) }
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const body = init.body ?? undefined
    const headers = init.headers
    const plain = (body === undefined || typeof body === 'string' || body instanceof Uint8Array)
      && (headers === undefined || (!Array.isArray(headers) && !(headers instanceof Headers)))
    const url = typeof input === 'string' || input instanceof URL ? new URL(input) : undefined
    const agent = url && (url.protocol === 'http:' || url.protocol === 'https:') ? agents[url.protocol] : undefined
    // A URL with credentials in it is refused by fetch, as it was before (node:http would send them).
    if (!plain || !url || !agent || url.username !== '' || url.password !== '') return fetch(input, init)
    return send(url, init, body, agent)
  }) as typeof fetch
}

function send(url: URL, init: RequestInit, body: string | Uint8Array | undefined, agent: HttpAgent): Promise<Response> {
  const signal = init.signal ?? undefined
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const headers = { ...(init.headers as Record<string, string> | undefined) }
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: init.method ?? 'GET', headers, agent })
    const onAbort = () => request.destroy(signal!.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    const fail = (error: unknown) => {
      signal?.removeEventListener('abort', onAbort)
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }))
    }
    request.on('error', fail)
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', fail)
      response.on('end', () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(answer(url, response.statusCode ?? 0, response.statusMessage ?? '', response.headers, Buffer.concat(chunks)))
      })
    })
    request.end(body)
  })
}

/** The part of a Response the Web API client reads: status, headers, the body as text, bytes or JSON. */
function answer(url: URL, status: number, statusText: string, raw: IncomingHttpHeaders, bytes: Buffer): Response {
  const entries = Object.entries(raw).map(([name, value]): [string, string] => [name, Array.isArray(value) ? value.join(', ') : String(value)])
  const headers = {
    get: (name: string) => entries.find(([n]) => n === name.toLowerCase())?.[1] ?? null,
    has: (name: string) => entries.some(([n]) => n === name.toLowerCase()),
    entries: () => entries[Symbol.iterator](),
    [Symbol.iterator]: () => entries[Symbol.iterator](),
  }
  const text = async () => bytes.toString('utf8')
  return {
    url: url.href, status, statusText, ok: status >= 200 && status < 300, redirected: false, headers,
    text, json: async () => JSON.parse(await text()) as unknown,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  } as unknown as Response
}
