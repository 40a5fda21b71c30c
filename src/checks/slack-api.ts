import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'

/** What the checks need to reach Slack: the bot token and SLACK_API_URL (with its trailing slash). */
export interface SlackCheckOptions {
  token: string
  apiUrl: string
  timeoutMs?: number
}

export interface SlackAnswer {
  data: { ok?: boolean; error?: string; [key: string]: unknown }
  headers: Headers
}

/**
 * One Slack Web API call for the checks only: `auth.test` reports the granted scopes in the `x-oauth-scopes`
 * response header, which WebClient does not expose (docs/decisions.md), and using the same path for
 * `conversations.info` keeps both checks alike. On node:http(s), not fetch: the server's start-up check is
 * its only HTTP call before the first delivery, and fetch would set up undici's client and HTTP parser for it
 * (about 4 MiB of the start's memory, docs/performance.md); node:http is loaded anyway. As fetch did: the
 * whole call within the timeout (rejecting with its TimeoutError), a status outside 2xx answered as
 * `http_<status>`. Throws only when Slack cannot be reached.
 */
export function callSlack(options: SlackCheckOptions, method: string, params: Record<string, string> = {}): Promise<SlackAnswer> {
  const url = new URL(`${options.apiUrl}${method}`)
  const body = new URLSearchParams(params).toString()
  const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : error)
    const request = send(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      signal,
    }, (response) => {
      const headers = new Headers()
      for (let i = 0; i < response.rawHeaders.length; i += 2) headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!)
      const status = response.statusCode ?? 0
      if (status < 200 || status > 299) {
        response.resume()
        resolve({ data: { ok: false, error: `http_${status}` }, headers })
        return
      }
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', fail)
      response.on('end', () => {
        try {
          resolve({ data: JSON.parse(Buffer.concat(chunks).toString('utf8')) as SlackAnswer['data'], headers })
        } catch (error) {
          reject(error)
        }
      })
    })
    request.on('error', fail)
    request.end(body)
  })
}

/** Why Slack could not be reached, and what to do: the system error's code when there is one. */
export function unreachable(apiUrl: string, error: unknown): { reason: string; fix: string } {
  const cause = codeOf((error as { cause?: unknown } | undefined)?.cause) ?? codeOf(error) ?? (error instanceof Error ? error.message : String(error))
  return {
    reason: `Slack unreachable at ${redactUrl(apiUrl)} (${redactUrlsIn(cause)})`,
    fix: 'check the network path to Slack, or SLACK_API_URL if you set it',
  }
}

/** `ECONNREFUSED` and the like; a DOMException's numeric legacy code is not one. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? code : undefined
}
