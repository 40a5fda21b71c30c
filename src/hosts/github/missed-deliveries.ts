import { isPrheraldError } from '../../errors.ts'
import type { MissedDeliveriesOptions, MissedDeliveriesResult, MissedDelivery } from '../contract.ts'
import { GITHUB_REQUIRED_EVENTS } from './events.ts'
import { nextLink, type GithubRequest } from './requests.ts'
import { stopsRun } from '../git-host-error.ts'

/** The fields of a GitHub webhook delivery-log entry that reconcile reads. */
export interface DeliveryLogEntry {
  id: number
  guid: string
  delivered_at: string
  redelivery: boolean
  status: string
  status_code: number
  event: string
  action: string | null
}

export interface MissedDeliveriesDeps extends MissedDeliveriesOptions {
  request: GithubRequest
}

/** GitHub keeps three days of deliveries; this many pages of 100 is far beyond what one repository's prherald hook logs in that time. */
const MAX_PAGES = 20
const enc = encodeURIComponent
const trim = (url: string) => url.replace(/\/+$/, '')
const ok = (entry: DeliveryLogEntry) => entry.status_code >= 200 && entry.status_code < 300
const WANTED: ReadonlySet<string> = new Set(GITHUB_REQUIRED_EVENTS)

interface HookBody { id: number; active: boolean; config: { url?: string } }

/** prherald's hook among a repository's: the one at hookUrl, else the only one whose URL ends in /webhook/github. */
function prheraldHook(hooks: HookBody[], hookUrl: string | undefined): HookBody | string {
  const candidates = hookUrl !== undefined
    ? hooks.filter((h) => trim(h.config.url ?? '') === trim(hookUrl))
    : hooks.filter((h) => /\/webhook\/github\/?$/.test(h.config.url ?? ''))
  if (candidates.length === 1) return candidates[0]!
  if (candidates.length === 0) return hookUrl !== undefined ? `no webhook with the URL ${hookUrl}` : 'no webhook whose URL ends in /webhook/github'
  return 'several webhooks end in /webhook/github'
}

/**
 * Catches up on deliveries GitHub could not make (prherald was down, or answered 5xx): for each repository,
 * finds prherald's webhook, reads its delivery log newest first back to the hook's mark (the newest entry an
 * earlier run looked at; the whole log, which GitHub keeps for three days, the first time), and asks GitHub
 * to redeliver every pull-request event whose deliveries all failed. Redelivered events come back through
 * the webhook route, signed, and go through the intake like any other (a duplicate is recognised there).
 */
export async function missedDeliveries(deps: MissedDeliveriesDeps): Promise<MissedDeliveriesResult> {
  const result: MissedDeliveriesResult = { missed: [], problems: [] }
  for (const repository of deps.repositories) {
    try {
      await examine(deps, repository, result)
    } catch (error) {
      if (stopsRun(error)) throw error
      result.problems.push({ repository, message: error instanceof Error ? error.message : String(error), fix: isPrheraldError(error) ? error.fix : undefined })
    }
  }
  return result
}

async function examine(deps: MissedDeliveriesDeps, repository: string, result: MissedDeliveriesResult): Promise<void> {
  const [owner = '', repo = ''] = repository.split('/')
  const base = `/repos/${enc(owner)}/${enc(repo)}/hooks`
  const hook = prheraldHook((await deps.request<HookBody[]>('GET', `${base}?per_page=100`)).data, deps.hookUrl)
  if (typeof hook === 'string') {
    result.problems.push({ repository, message: hook, fix: 'set PRHERALD_PUBLIC_URL to the URL the webhook was created with (prherald-config create-webhook)' })
    return
  }
  const key = `${repository}#${hook.id}`
  const mark = await deps.store.hookDeliveryMark('github', key)
  const since = mark ? Date.parse(mark.deliveredAt) : Number.NEGATIVE_INFINITY
  const entries: DeliveryLogEntry[] = []
  let url: string | undefined = `${base}/${hook.id}/deliveries?per_page=100`
  for (let page = 0; url !== undefined && page < MAX_PAGES; page++) {
    const answer: Awaited<ReturnType<GithubRequest>> = await deps.request<DeliveryLogEntry[]>('GET', url)
    const batch = answer.data as DeliveryLogEntry[]
    const fresh = batch.filter((e) => Date.parse(e.delivered_at) > since && String(e.id) !== mark?.deliveryId)
    entries.push(...fresh)
    url = fresh.length === batch.length ? nextLink(answer.headers) : undefined
  }
  // Every attempt of an event shares its guid: one that succeeded, whenever, means prherald has it.
  const delivered = new Set(entries.filter(ok).map((e) => e.guid))
  const failed = new Map<string, DeliveryLogEntry>()
  for (const entry of entries) {
    if (ok(entry) || delivered.has(entry.guid) || !WANTED.has(entry.event) || failed.has(entry.guid)) continue
    failed.set(entry.guid, entry) // newest attempt first
  }
  for (const entry of [...failed.values()].reverse()) {
    const missed: MissedDelivery = {
      repository, hookId: hook.id, guid: entry.guid, event: entry.action ? `${entry.event}.${entry.action}` : entry.event,
      deliveredAt: entry.delivered_at, statusCode: entry.status_code, redelivered: false,
    }
    if (deps.redeliver) {
      await deps.request('POST', `${base}/${hook.id}/deliveries/${entry.id}/attempts`)
      missed.redelivered = true
    }
    result.missed.push(missed)
  }
  const newest = entries[0]
  if (deps.redeliver && newest) await deps.store.saveHookDeliveryMark('github', key, { deliveredAt: newest.delivered_at, deliveryId: String(newest.id) })
}
