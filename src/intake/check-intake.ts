import type { StoredLifecycle } from '../../machines/decide.ts'
import type { Mappings } from '../config/schema.ts'
import { pullRequestKey, type CheckDelivery, type IgnoreReason, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Logger } from '../log/logger.ts'
import { resolveRoute } from '../routing/resolve-route.ts'
import { hasMessage, type DeliveryBody, type DeliveryStore, type MessageStore } from '../store/store.ts'
import { duplicateReason } from './duplicate-reason.ts'
import { logIgnored } from './log-ignored.ts'

export interface CheckIntakeDeps {
  mappings: Mappings
  store: DeliveryStore & MessageStore
  logger: Logger
  handOff: (event: PullRequestEvent) => void
}

export type CheckIntakeResult = { status: 'accepted' } | { status: 'ignored'; reason: IgnoreReason }

/**
 * The pull request's facts for a check event, from its stored lifecycle: a check payload carries no title
 * or author, and the machine never refreshes from a check (nor follows its draft flag).
 */
function factsFrom(lifecycle: StoredLifecycle, at: string): PullRequestEvent['pr'] {
  const { state, context } = lifecycle
  return {
    title: context.title, url: context.url, author: context.author, createdAt: context.createdAt, updatedAt: at,
    draft: state === 'draft', state: state === 'merged' ? 'merged' : state === 'closed' || state === 'ended' ? 'closed' : 'open',
  }
}

/**
 * A check result names a commit; this finds the pull requests it belongs to: those the payload lists, and
 * those whose head prherald recorded as this commit (a `status` lists none, a fork's check suite neither).
 * Each pull request with a stored lifecycle gets a `check_completed` event in its mailbox, recorded under
 * the delivery id and its number, so a redelivery is a duplicate for each. Whether the commit is still the
 * head is the machine's call, in order with the pull request's other events.
 */
export function createCheckIntake(deps: CheckIntakeDeps) {
  return async function acceptCheck(d: CheckDelivery, body?: DeliveryBody): Promise<CheckIntakeResult> {
    const facts = { provider: d.provider, deliveryId: d.deliveryId, event: 'check_completed', owner: d.owner, repo: d.repo }
    const ignore = (reason: IgnoreReason, number?: number): CheckIntakeResult => {
      logIgnored(deps.logger, reason, { ...facts, number })
      return { status: 'ignored', reason }
    }
    if (!resolveRoute(deps.mappings, d.owner, d.repo)) return ignore('no_mapping')
    const repository = `${d.owner}/${d.repo}`
    const numbers = [...new Set([...d.prNumbers, ...await deps.store.pullRequestsWithHead(d.provider, repository, d.result.sha)])]
    if (numbers.length === 0) return ignore('unknown_commit')
    let accepted = 0
    let reason: IgnoreReason = 'no_stored_message'
    for (const number of numbers.sort((a, b) => a - b)) {
      const rows = await deps.store.findMessages({ provider: d.provider, repository, prNumber: number })
      const row = rows.find(hasMessage) ?? rows[0]
      if (!row) {
        logIgnored(deps.logger, 'no_stored_message', { ...facts, number })
        continue
      }
      const event: PullRequestEvent = {
        provider: d.provider, deliveryId: `${d.deliveryId}#${number}`, owner: d.owner, repo: d.repo, number, kind: 'check_completed',
        pr: factsFrom(row.lifecycle, d.result.at), actor: d.sender, check: d.result,
      }
      const recorded = await deps.store.recordDelivery({
        provider: d.provider, deliveryId: event.deliveryId, prKey: pullRequestKey(event), event, ...(body ? { body } : {}),
      })
      if (!recorded) {
        const duplicate = await duplicateReason(deps.store, d.provider, body)
        logIgnored(deps.logger, duplicate.reason, { ...facts, deliveryId: event.deliveryId, number, firstDeliveryId: duplicate.firstDeliveryId })
        reason = duplicate.reason
        continue
      }
      deps.handOff(event)
      accepted++
    }
    return accepted > 0 ? { status: 'accepted' } : { status: 'ignored', reason }
  }
}
