import type { Provider } from '../../machines/pull-request-event.ts'
import { queries as q } from './queries.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Statement } from './dialect.ts'
import type { Param, Step, StoreDriver } from './store-driver.ts'
import {
  deliveryFromRow, intentFromRow, messageFromRow, openMessageFromRow, personLookupFromRow, refFromRow, threadReplyFromRow,
  type DeliveryRow, type IntentRow, type MessageRow, type OpenMessageRow, type PullRequestRow, type ThreadReplyRow,
} from './store-rows.ts'
import { hasMessage, type DeliveryOutcome, type ForgottenRows, type MessageRecord, type PullRequestRef, type SharedWork, type Store, type StoredMessage } from './store.ts'
import { createPersonalStore, targetText } from './personal-store.ts'
import { createTalkBackStore } from './talk-back-store.ts'
import { createReviewFormStore, deleteExpiredReviewForms } from './review-form-store.ts'
import { createActionCounts, deleteActionsBefore } from './action-count-store.ts'
import { createAssignmentStore, deleteAssignmentsBefore } from './assignment-store.ts'
import { createTurnaroundStore, deleteTurnaroundBefore, saveTurnaroundStep } from './turnaround-store.ts'
import { createReminderStore } from './reminder-store.ts'
import { createWeeklyPostStore } from './weekly-post-store.ts'
import { createReplyCommentStore, deleteReplyCommentsBefore } from './reply-comment-store.ts'
import { personalQueries } from './personal-queries.ts'
import { readStoredEvent, storedEvent, storedLifecycle } from './stored-json.ts'
import { peopleOf } from '../../machines/pull-request-people.ts'

export interface StoreDeps {
  driver: StoreDriver
  /** How servers on this database share the work (trivial on SQLite, locks and leases on PostgreSQL). */
  sharedWork: SharedWork
  now: () => number
}

type Count = { n: number | string }

/** The daily cleanup deletes at most this many rows of a table in one transaction... */
export const CLEANUP_SLICE_ROWS = 500
/** ...and lets the event loop and other writers run this long between two. */
const CLEANUP_SLICE_GAP_MS = 5

const sum = (counts: readonly number[]) => counts.reduce((total, n) => total + n, 0)

const messageStep = (m: MessageRecord, at: number): Step => [q.saveMessage, [
  m.provider, m.repository, m.prNumber, m.channel, m.ts, JSON.stringify(m.mentions), m.state, storedLifecycle(m.lifecycle), m.lastDeliveryId, JSON.stringify(m.reactions), at, at,
]]
/** A pull request's row, and whether it is open with a message in Slack (a row to keep people for). */
type PeopleSource = Pick<MessageRecord, keyof PullRequestRef | 'lifecycle'> & { open: boolean }
const peopleSource = (m: MessageRecord): PeopleSource => ({ ...m, open: m.state === 'open' && hasMessage(m) })

/**
 * The people of the pull requests among `rows` (each once, from its last row): an open one's author and
 * whoever it waits on, replacing what was there; one no longer open has none.
 */
function peopleSteps(rows: readonly PeopleSource[], at: number): Step[] {
  const last = new Map(rows.map((r) => [`${r.provider}\n${r.repository}\n${r.prNumber}`, r]))
  return [...last.values()].flatMap((r): Step[] => {
    const pr = [r.provider, r.repository, r.prNumber]
    // The store keeps whatever lifecycle it is given; one without a pull request's context concerns nobody.
    const people = r.open && r.lifecycle.context !== undefined ? peopleOf(r.lifecycle.context) : []
    return [[q.deletePeopleOf, pr], ...people.map((person): Step => [q.savePerson, [...pr, person, at]])]
  })
}
const key = (pr: PullRequestRef, channel: string): Param[] => [pr.provider, pr.repository, pr.prNumber, channel]
// A pull request's rows, oldest first, then by channel id byte-wise (as SQLite orders text, whatever PostgreSQL's locale).
/** By repository, compared as UTF-8 bytes (what `COLLATE "C"` and SQLite's default compare), then by number. */
const byRepositoryAndNumber = (a: PullRequestRow, b: PullRequestRow) =>
  Buffer.compare(Buffer.from(a.repository), Buffer.from(b.repository)) || Number(a.pr_number) - Number(b.pr_number)
const oldestFirst = (a: StoredMessage, b: StoredMessage) =>
  a.createdAt - b.createdAt || Buffer.compare(Buffer.from(a.channel), Buffer.from(b.channel))
const headStep = (pr: PullRequestRef, sha: string, at: number): Step => [q.saveHead, [pr.provider, pr.repository, sha, pr.prNumber, at]]

/**
 * The one Store implementation, over either engine's driver: each method is the statements of
 * src/store/queries.ts it runs. Every write goes through `driver.write`, which SQLite group-commits.
 */
export function createStore({ driver, sharedWork, now }: StoreDeps): Store {
  const first = async <Row>(statement: Step[0], params: readonly Param[]) => (await driver.read<Row>(statement, params))[0]
  // The first row, decoded; undefined when there is none.
  const one = async <Row, T>(statement: Step[0], params: readonly Param[], decode: (row: Row) => T) => {
    const row = await first<Row>(statement, params)
    return row === undefined ? undefined : decode(row)
  }
  const count = async (statement: Step[0]) => Number((await first<Count>(statement, []))?.n ?? 0)
  // Not async: the intake's recordDelivery is the hot path, and each async frame costs a promise.
  const write = (...steps: Step[]) => driver.write(steps).then(sum)
  // A write whose count nobody reads.
  const change = (...steps: Step[]): Promise<void> => driver.write(steps).then(() => undefined)
  return {
    ...sharedWork,
    ...createPersonalStore(driver, now),
    ...createTalkBackStore(driver, now),
    ...createReviewFormStore(driver, now),
    ...createReplyCommentStore(driver, now),
    ...createActionCounts(driver),
    ...createTurnaroundStore(driver),
    ...createReminderStore(driver),
    ...createAssignmentStore(driver),
    ...createWeeklyPostStore(driver),
    async findMessages(pr) {
      return (await driver.read<MessageRow>(q.findMessages, [pr.provider, pr.repository, pr.prNumber])).map(messageFromRow).sort(oldestFirst)
    },
    async openPullRequests(filter) {
      const repository = filter.repository ?? null
      const rows = await driver.read<PullRequestRow>(q.openPullRequests, [filter.provider, repository, repository, filter.touchedSince ?? 0])
      // One per pull request (a row per channel), by repository (bytewise, as both engines sorted it before) and number.
      const unique = new Map(rows.map((r) => [`${r.repository}\n${r.pr_number}`, r]))
      return [...unique.values()].sort(byRepositoryAndNumber).map(refFromRow)
    },
    saveMessage(m) {
      const at = now()
      return change(messageStep(m, at), ...peopleSteps([peopleSource(m)], at))
    },
    async forgetBefore(cutoff, replayCutoff = cutoff, turnaroundCutoff = cutoff) {
      const forgotten: ForgottenRows = {
        messages: 0, deliveries: 0, bodies: 0, runClaims: 0, threadRecords: 0, slackRequests: 0, directMessages: 0, reviewForms: 0, personActions: 0, turnaround: 0,
      }
      const deletes: readonly [keyof ForgottenRows, Statement, number][] = [
        ['messages', q.deleteMessagesUntouchedSince, cutoff], ['messages', q.deletePeopleUntouchedSince, cutoff], ['deliveries', q.deleteAppliedDeliveriesBefore, replayCutoff], ['bodies', q.deleteBodiesBefore, replayCutoff],
        ['runClaims', q.deleteRunClaimsBefore, cutoff], ['runClaims', deleteAssignmentsBefore, cutoff], ['threadRecords', q.deleteThreadRepliesBefore, cutoff], ['threadRecords', q.deleteHeadsBefore, cutoff],
        ['slackRequests', q.deleteSlackRequestsBefore, replayCutoff], ['directMessages', q.deleteDirectMessagesBefore, cutoff], ['threadRecords', deleteReplyCommentsBefore, cutoff],
        // A review form is good for an hour, whatever the cutoff: an expired one only waits to be deleted.
        ['reviewForms', deleteExpiredReviewForms, now()], ...deleteActionsBefore.map((s): [keyof ForgottenRows, Statement, number] => ['personActions', s, cutoff]),
        ['turnaround', deleteTurnaroundBefore, turnaroundCutoff],
      ]
      // A slice a transaction, then a pause: a delivery's acknowledgement waits for at most one slice, never
      // for a year's rows (docs/performance.md, "A year of history"). Rows are only aged out, so a cleanup cut
      // short between slices leaves nothing half-done: the next day's run deletes the rest.
      for (const [kind, statement, before] of deletes) {
        for (;;) {
          const [deleted = 0] = await driver.write([[statement, [before, CLEANUP_SLICE_ROWS]]])
          forgotten[kind] += deleted
          if (deleted < CLEANUP_SLICE_ROWS) break
          await sleep(CLEANUP_SLICE_GAP_MS)
        }
      }
      return forgotten
    },
    claimSlackRequest: async (requestId) => (await driver.write([[q.claimSlackRequest, [requestId, now()]]]))[0] === 1,
    releaseSlackRequest: (requestId) => change([q.releaseSlackRequest, [requestId]]),
    countMessages: () => count(q.countMessages),
    openMessages: async () => (await driver.read<OpenMessageRow>(q.openMessages)).map(openMessageFromRow),
    async openMessagesOf(provider, people) {
      if (people.length === 0) return []
      return (await driver.read<OpenMessageRow>(q.openMessagesOfPeople, [provider, JSON.stringify(people)])).map(openMessageFromRow)
    },
    async keepPeopleOfOpenMessages() {
      const rows = (await driver.read<OpenMessageRow>(q.openMessagesWithoutPeople)).map(openMessageFromRow)
      const at = now()
      const steps = peopleSteps(rows.map((r) => ({ ...r, open: true })), at)
      if (steps.length > 0) await change(...steps)
      return new Set(rows.map((r) => `${r.provider}\n${r.repository}\n${r.prNumber}`)).size
    },
    recordDelivery(d, head) {
      const at = now()
      // The head commit and the body's digest ride in the delivery's own transaction: one commit before the 200.
      const steps: Step[] = head ? [headStep(head.pr, head.sha, at)] : []
      if (d.body) {
        steps.push([q.recordBody, [d.provider, d.body.digest, d.body.deliveryId, at]])
        steps.push([q.recordDeliveryOfBody, [d.provider, d.deliveryId, d.prKey, storedEvent(d.event), at, d.provider, d.body.digest, d.body.deliveryId]])
      } else steps.push([q.recordDelivery, [d.provider, d.deliveryId, d.prKey, storedEvent(d.event), at]])
      return driver.write(steps).then((n) => n.at(-1) === 1)
    },
    // A field without a value dropped, as JSON drops it.
    readBack: (event) => readStoredEvent(storedEvent(event)),
    async firstDeliveryOfBody(provider, digest) {
      return (await first<{ delivery_id: string }>(q.firstDeliveryOfBody, [provider, digest]))?.delivery_id
    },
    pendingDeliveries: async () => (await driver.read<DeliveryRow>(q.pendingDeliveries)).map(deliveryFromRow),
    async commitOutcome(outcome: DeliveryOutcome) {
      const at = now()
      const steps: Step[] = [...outcome.messages.map((m) => messageStep(m, at)), ...peopleSteps(outcome.messages.map(peopleSource), at)]
      if (outcome.deliveryIds.length > 0) steps.push([q.markApplied, [at, outcome.provider, JSON.stringify(outcome.deliveryIds)]])
      const active = outcome.activity
      if (active) steps.push([q.markActivity, [at, active.provider, active.repository, active.prNumber]])
      if (outcome.turnaround) steps.push(saveTurnaroundStep(outcome.turnaround, at))
      for (const d of outcome.directMessages ?? []) steps.push([personalQueries.queueIntent, [targetText(d.target), d.dmKey, d.prKey, d.body, d.actorUser ?? null, d.createdAt]])
      if (steps.length > 0) await write(...steps)
    },
    async pendingDeliveryStats() {
      const row = await first<Count & { oldest: number | string | null; parked: number | string | null }>(q.pendingDeliveryStats, [])
      return { count: Number(row?.n ?? 0), oldestReceivedAt: row?.oldest == null ? undefined : Number(row.oldest), parked: Number(row?.parked ?? 0) }
    },
    async recordFailedBatch(prKey, maxAttempts) {
      const [, parked = 0] = await driver.write([[q.countFailedAttempt, [prKey]], [q.parkExhausted, [now(), prKey, maxAttempts]]])
      return parked
    },
    replayParked: () => write([q.replayParked, []]),
    recordPostIntent: (i) => change([q.recordPostIntent, [...key(i, i.channel), i.marker, JSON.stringify(i.mentions), i.state, storedLifecycle(i.lifecycle), i.lastDeliveryId, i.createdAt]]),
    findPostIntent: (pr, channel) => one(q.findPostIntent, key(pr, channel), intentFromRow),
    postIntents: async () => (await driver.read<IntentRow>(q.postIntents)).map(intentFromRow),
    postInFlight: async (channel, since) => (await first(q.postInFlight, [channel, since])) !== undefined,
    completePostIntent(m) {
      const at = now()
      return change(messageStep(m, at), ...peopleSteps([peopleSource(m)], at), [q.deletePostIntent, key(m, m.channel)])
    },
    dropPostIntent: (pr, channel, marker) => change([q.dropPostIntent, [...key(pr, channel), marker]]),
    findPersonLookup: (provider, login) => one(q.findPersonLookup, [provider, login], personLookupFromRow),
    savePersonLookup: (l) => change([q.savePersonLookup, [l.provider, l.login, l.outcome, l.slackUserId ?? null, l.expiresAt]]),
    loginsOfSlackUser: async (slackUserId) => driver.read<{ provider: string; login: string }>(q.loginsOfSlackUser, [slackUserId]),
    findThreadReply: (pr, channel, replyKey) => one(q.findThreadReply, [...key(pr, channel), replyKey], threadReplyFromRow),
    threadReplyAt: (pr, channel, ts) => one(q.threadReplyAt, [...key(pr, channel), ts], threadReplyFromRow),
    recordThreadReplyIntent: (r) => change([q.recordThreadReplyIntent, [...key(r, r.channel), r.replyKey, r.createdAt]]),
    threadReplyIntents: async () => (await driver.read<ThreadReplyRow>(q.threadReplyIntents)).map(threadReplyFromRow),
    completeThreadReply: (pr, channel, replyKey, ts) => change([q.completeThreadReply, [ts, ...key(pr, channel), replyKey]]),
    dropThreadReplyIntent: (pr, channel, replyKey) => change([q.dropThreadReplyIntent, [...key(pr, channel), replyKey]]),
    saveHead: (pr, sha) => change(headStep(pr, sha, now())),
    async pullRequestsWithHead(provider: Provider, repository: string, sha: string) {
      return (await driver.read<{ pr_number: number }>(q.pullRequestsWithHead, [provider, repository, sha])).map((r) => Number(r.pr_number))
    },
    hookDeliveryMark: (provider, hook) =>
      one(q.hookDeliveryMark, [provider, hook], (row: { delivered_at: string; delivery_id: string }) => ({ deliveredAt: row.delivered_at, deliveryId: row.delivery_id })),
    saveHookDeliveryMark: (provider, hook, mark) => change([q.saveHookDeliveryMark, [provider, hook, mark.deliveredAt, mark.deliveryId, now()]]),
    claimRun: async (job, runKey) => await write([q.claimRun, [job, runKey, now()]]) === 1,
    close: () => driver.close(),
  }
}
