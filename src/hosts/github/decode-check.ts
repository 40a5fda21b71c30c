import type { CheckDelivery, CheckOutcome, CommitCheck, Ignored, IgnoreReason } from '../../../machines/pull-request-event.ts'
import { at, int, obj, str } from '../../read-fields.ts'

export const CHECK_EVENTS: ReadonlySet<string> = new Set(['check_suite', 'status'])

// Maps, not object literals: a lookup by a payload string must not find `constructor` or `__proto__`.
const SUITE_CONCLUSIONS = new Map<string, CheckOutcome>([
  ['success', 'passed'], ['neutral', 'passed'], ['skipped', 'passed'],
  ['failure', 'failed'], ['timed_out', 'failed'], ['startup_failure', 'failed'],
  // Waiting for someone, or superseded: neither a pass nor a failure.
  ['action_required', 'pending'], ['cancelled', 'pending'], ['stale', 'pending'],
])
const STATUS_STATES = new Map<string, CheckOutcome>([['success', 'passed'], ['failure', 'failed'], ['error', 'failed'], ['pending', 'pending']])

function suiteResult(root: Record<string, unknown>): { result?: CommitCheck; prNumbers: number[]; reason?: IgnoreReason } {
  if (str(root, 'action') !== 'completed') return { prNumbers: [], reason: 'unsupported_action' }
  const suite = obj(at(root, 'check_suite'))
  const sha = str(suite, 'head_sha')
  const outcome = SUITE_CONCLUSIONS.get(str(suite, 'conclusion') ?? '')
  const app = str(suite, 'app', 'slug') ?? (int(suite, 'app', 'id') === undefined ? undefined : String(int(suite, 'app', 'id')))
  const when = str(suite, 'updated_at')
  if (!sha || !outcome || !app || !when) return { prNumbers: [], reason: 'invalid_payload' }
  const repoId = at(root, 'repository', 'id')
  const listed = at(suite, 'pull_requests')
  // Only this repository's pull requests (a fork's entry names its base repository here, when present at all).
  const prNumbers = (Array.isArray(listed) ? listed : [])
    .filter((p) => at(p, 'base', 'repo', 'id') === undefined || at(p, 'base', 'repo', 'id') === repoId)
    .flatMap((p) => int(p, 'number') ?? [])
  return { result: { sha, source: `app:${app}`, outcome, at: when }, prNumbers }
}

function statusResult(root: Record<string, unknown>): { result?: CommitCheck; prNumbers: number[]; reason?: IgnoreReason } {
  const sha = str(root, 'sha')
  const context = str(root, 'context')
  const outcome = STATUS_STATES.get(str(root, 'state') ?? '')
  const when = str(root, 'updated_at') ?? str(root, 'created_at')
  if (!sha || !context || !outcome || !when) return { prNumbers: [], reason: 'invalid_payload' }
  return { result: { sha, source: `status:${context}`, outcome, at: when }, prNumbers: [] }
}

/** Decodes `check_suite` and `status` deliveries. Pure; never throws. */
export function decodeGithubCheck(eventName: string, deliveryId: string, payload: unknown): CheckDelivery | Ignored {
  const root = obj(payload)
  const owner = str(root, 'repository', 'owner', 'login')
  const repo = str(root, 'repository', 'name')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventName, owner, repo })
  if (!root) return ignored('invalid_payload')
  const { result, prNumbers, reason } = eventName === 'check_suite' ? suiteResult(root) : statusResult(root)
  const login = str(root, 'sender', 'login')
  if (!result || !owner || !repo || !login) return ignored(reason ?? 'invalid_payload')
  return {
    check: true, provider: 'github', deliveryId, owner, repo, result, prNumbers: [...new Set(prNumbers)],
    sender: { login, isBot: str(root, 'sender', 'type') === 'Bot' || login.endsWith('[bot]') },
  }
}
