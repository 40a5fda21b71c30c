import type { CheckResult } from '../checks/check-result.ts'
import { hostOf } from '../hosts/registry.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { SmokeDelivery } from '../hosts/contract.ts'

const TUNNEL_FIX = "start prherald-server; if the URL is a tunnel or a proxy, check that it runs and forwards to the server's port (PRHERALD_LISTEN)"

/** Why a request to the service got no answer at all: the server or the tunnel in front of it is down. */
function unreachable(name: string, url: string, error: unknown): CheckResult {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error instanceof Error ? error.message : String(error))
  return { name, target: url, status: 'FAIL', reason: `nothing answers at ${url} (${cause})`, fix: TUNNEL_FIX }
}

/** A status prherald itself never answers with (502, 503, 504, 530...) comes from a tunnel or proxy. */
function gateway(name: string, url: string, status: number): CheckResult {
  return { name, target: url, status: 'FAIL', reason: `${url} answered ${status}: a tunnel or proxy answered, not prherald`, fix: TUNNEL_FIX }
}

/** reach: GET /healthz answers 200 {"status":"ok"}. */
export async function checkHealth(baseUrl: string, timeoutMs: number): Promise<CheckResult> {
  const url = `${baseUrl}/healthz`
  let response: Response
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    return unreachable('reach', url, error)
  }
  const body = await response.text()
  if (response.status === 200 && body.includes('"ok"')) return { name: 'reach', target: url, status: 'OK', reason: 'prherald answers' }
  if (response.status === 404) {
    return { name: 'reach', target: url, status: 'FAIL', reason: `${url} answered 404: this is not prherald`, fix: 'give the base URL of the service (--url or PRHERALD_PUBLIC_URL), without /webhook/…' }
  }
  return gateway('reach', url, response.status)
}

const IGNORED_FIXES: Record<string, (target: string) => string> = {
  no_mapping: (target) => `the server's config.yaml maps no channel for ${target}: pass --repository with a mapped repository, or run prherald-smoke with the server's config file`,
  invalid_payload: () => 'the server does not know smoke-test pull requests (number 0): it is older than prherald-smoke; upgrade it',
}

/** deliver: one signed delivery; 200 with {"status":"accepted"} is OK, anything else says what to change. */
export async function postDelivery(baseUrl: string, provider: Provider, delivery: SmokeDelivery, name: string, target: string, timeoutMs: number): Promise<CheckResult> {
  const url = `${baseUrl}/webhook/${provider}`
  let response: Response
  try {
    response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    return unreachable(name, url, error)
  }
  const text = await response.text()
  const fail = (reason: string, fix: string): CheckResult => ({ name, target, status: 'FAIL', reason, fix })
  if (response.status === 401) {
    const variable = hostOf(provider).variables.secret
    return fail('the service refused the signature (401): wrong webhook secret',
      `prherald-smoke signs with ${variable} from its environment or .env; give it the server's value (the git host's webhook must use the same one)`)
  }
  if (response.status === 404) {
    return fail(`${url} answered 404`, `the server is set up for the other git_provider, or the URL does not lead to prherald; this config says git_provider ${provider}`)
  }
  if (response.status !== 200) {
    if (response.status === 500 && text.includes('"internal"')) return fail('the server failed on the delivery (500)', 'see the server log for "unhandled request error"')
    return gateway(name, url, response.status)
  }
  let result: { status?: string; reason?: string } = {}
  try {
    result = JSON.parse(text) as typeof result
  } catch { /* not prherald's answer; reported below */ }
  if (result.status === 'accepted') return { name, target, status: 'OK', reason: `${url} accepted the signed delivery` }
  const reason = result.reason ?? 'an unexpected answer'
  return fail(`the server ignored the delivery (${reason})`, IGNORED_FIXES[reason]?.(target) ?? 'see the server log for "delivery ignored"')
}
