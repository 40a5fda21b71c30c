import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'
import { isPrheraldError } from '../errors.ts'
import type { GitHost } from '../hosts/contract.ts'
import type { WebhookApi, WebhookInfo } from '../hosts/webhooks.ts'
import type { CheckResult } from './check-result.ts'

/** Events of `wanted` a hook lacks; a hook that sends everything (GitHub's `*`) lacks none. */
function missingEvents(facts: GitHost['webhook'], hook: WebhookInfo, wanted = facts.required): string[] {
  if (facts.sendsEverything(hook.events)) return []
  return wanted.filter((e) => !hook.events.includes(e))
}

/** Pure: judges a repository's hooks. Needs an active hook ending in /webhook/<provider> with every required event. */
export function judgeHooks(host: GitHost, target: string, hooks: readonly WebhookInfo[]): CheckResult {
  const facts = host.webhook
  const suffix = `/webhook/${host.id}`
  const ours = hooks.filter((h) => h.url.replace(/[?#].*$/, '').replace(/\/+$/, '').endsWith(suffix))
  const active = ours.filter((h) => h.active)
  const base = { name: 'webhook', target } as const
  if (active.length === 0) {
    if (ours.length > 0) {
      return { ...base, status: 'FAIL', reason: `webhook ${redactUrl(ours[0]!.url)} is inactive`, fix: `activate it in the repository's webhook settings, or ${facts.setupFix(target)}` }
    }
    return {
      ...base, status: 'FAIL',
      reason: `no webhook whose URL ends in ${suffix} (${hooks.length === 0 ? 'the repository has none' : `${hooks.length} other webhook${hooks.length === 1 ? '' : 's'}`})`,
      fix: facts.setupFix(target),
    }
  }
  const best = active.map((h) => ({ hook: h, missing: missingEvents(facts, h) })).sort((a, b) => a.missing.length - b.missing.length)[0]!
  if (best.missing.length > 0) {
    return {
      ...base, status: 'FAIL',
      reason: `webhook ${redactUrl(best.hook.url)} does not send ${best.missing.join(', ')}`,
      fix: facts.eventsFix(target),
    }
  }
  // Without the optional events only checks on the message are missing: worth saying, never worth a FAIL.
  const optional = missingEvents(facts, best.hook, facts.optional)
  if (optional.length > 0) {
    return {
      ...base, status: 'WARN',
      reason: `webhook ${redactUrl(best.hook.url)} is active with all ${facts.required.length} events, but does not send ${optional.join(', ')} (messages show no checks)`,
      fix: `tick those events on the webhook, or run prherald-config create-webhook ${target} to update it`,
    }
  }
  return { ...base, status: 'OK', reason: `webhook ${redactUrl(best.hook.url)} is active with all ${facts.required.length + facts.optional.length} events` }
}

/**
 * webhook: SKIP without a token; otherwise judge the repository's hooks, and when none will do, the hooks of
 * its organisation or workspace, which deliver for every repository in it.
 */
export async function webhookCheck(host: GitHost, api: WebhookApi | undefined, owner: string, repo: string): Promise<CheckResult> {
  const target = `${owner}/${repo}`
  if (!api) return { name: 'webhook', target, status: 'SKIP', reason: `${host.variables.token} is not set; webhook not checked` }
  let verdict: CheckResult
  try {
    verdict = judgeHooks(host, target, await api.listHooks(owner, repo))
  } catch (error) {
    return gitHostFailure('webhook', target, error)
  }
  if (verdict.status === 'OK' || verdict.status === 'WARN') return verdict
  try {
    const ownerVerdict = judgeHooks(host, target, await api.listOwnerHooks(owner))
    return ownerVerdict.status === 'OK' ? { ...ownerVerdict, reason: `${host.words.owner} ${ownerVerdict.reason}` } : verdict
  } catch (error) {
    // A personal account has no organisation hooks (404); any other failure leaves the repository's verdict.
    if (isPrheraldError(error, 'git_host_scope') || isPrheraldError(error, 'git_host_auth')) {
      return { ...verdict, fix: `${verdict.fix}; if the webhook is set on the ${host.words.owner} instead, ${host.webhook.ownerHookAccess}` }
    }
    return verdict
  }
}

/**
 * A failed git-host call as a FAIL line: the error names the call and status, its fix says what to change.
 * No answer, a 5xx or a rate limit (`git_host`) is `unavailable`: a later run may pass, so the start-up checks
 * only warn about it; a refusal (401, 403, 404) is not.
 */
export function gitHostFailure(name: string, target: string, error: unknown): CheckResult {
  if (isPrheraldError(error)) {
    const unavailable = isPrheraldError(error, 'git_host') || isPrheraldError(error, 'git_host_rate_limited')
    return { name, target, status: 'FAIL', reason: error.message, fix: error.fix, ...(unavailable ? { unavailable: true } : {}) }
  }
  return { name, target, status: 'FAIL', reason: `unexpected error: ${redactUrlsIn(error instanceof Error ? error.message : String(error))}` }
}
