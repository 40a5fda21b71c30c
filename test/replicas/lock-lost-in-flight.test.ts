import { expect, it } from 'vitest'
import type pg from 'pg'
import { queryOnce } from '../../bench/query-once.ts'
import { readStoredLifecycle } from '../../src/store/stored-json.ts'
import { renderMessage } from '../../src/slack/render-message.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { usePostgresReplicas } from '../helpers/replica-set.ts'
import type { SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { FULL_REACTIONS, FULL_STATUS, messagesOf, prDeliveries, statusOf } from '../faults/pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * The chaos run's #924 (docs/reliability.md): a replica's Slack change was on its way when the connection
 * holding the pull request's advisory lock dropped; another replica took the lock, applied the next
 * delivery and wrote the final state; then the first change landed, leaving the message a step behind
 * what the database holds. Two real replicas on one PostgreSQL database, the fake Slack holding the one
 * call until the other replica is done, and the lock's connection ended with pg_terminate_backend.
 */
const CHANNEL = 'C0000000001'
const OWNER = 'Codertocat'
const PR = 7
const h = usePrherald({ slack: { anyChannel: true }, config: { server: { log_format: 'json', log_level: 'debug' }, database: { lease_seconds: 2 }, mappings: { [OWNER]: { '*': { channel: CHANNEL } } } } })
const cluster = usePostgresReplicas(h, 2)

const sql = <T extends pg.QueryResultRow>(text: string): Promise<T[]> => queryOnce<T>(cluster().database.url, text)

async function send(replica: SpawnedServer, delivery: ReturnType<typeof prDeliveries>[number]): Promise<void> {
  const response = await deliver(replica.url, 'github', delivery)
  expect(response.status).toBe(200)
}

/** The stored row's lifecycle rendered as the service renders it: what the message must end up showing. */
async function storedText(): Promise<string> {
  const rows = await sql<{ lifecycle: string; mentions: string }>(`SELECT lifecycle, mentions FROM slack_messages WHERE ts IS NOT NULL AND pr_number = ${PR}`)
  expect(rows).toHaveLength(1)
  return renderMessage({ lifecycle: readStoredLifecycle(rows[0]!.lifecycle), mentions: JSON.parse(rows[0]!.mentions) as string[] }).text
}

const pendingCount = async () => Number((await sql<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]!.n)

/** Ends the connection holding this database's pull-request lock, as a database restart would. */
async function endLockConnection(): Promise<void> {
  const ended = await sql<{ pid: number }>(`SELECT pg_terminate_backend(pid), pid FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
  expect(ended).toHaveLength(1)
}

async function holdThenLoseLock(method: 'chat.update' | 'reactions.add'): Promise<void> {
  const [opened, approved, commented] = prDeliveries(OWNER, PR)
  const [a, b] = cluster().replicas as [SpawnedServer, SpawnedServer]
  await send(a, opened!)
  await waitFor('the announcement', () => messagesOf(h.slack, OWNER, PR).length === 1 && h.slack.calls.length > 0)
  await waitFor('nothing pending', async () => await pendingCount() === 0)
  let release!: () => void
  h.slack.faults.push({ method, fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
  const held = new Promise<void>((resolve) => { h.slack.onCall = (m) => { if (m === method) resolve() } })
  await send(a, approved!)
  await held
  // The call is on its way; the lock goes with its connection, and replica b takes the pull request.
  await endLockConnection()
  await send(b, commented!)
  await waitFor('replica b to write the final state', async () => await pendingCount() === 0 && statusOf(messagesOf(h.slack, OWNER, PR)[0]!) === FULL_STATUS)
  release()
}

it('an update on its way when the lock went: the message ends showing the stored, final state', async () => {
  await holdThenLoseLock('chat.update')
  // Replica a's held update lands (the message shows an older state), then the message must come back.
  await waitFor('the message to show the stored state', async () => statusOf(messagesOf(h.slack, OWNER, PR)[0]!) === FULL_STATUS && messagesOf(h.slack, OWNER, PR)[0]!.updates >= 3, 15_000)
  const [message] = messagesOf(h.slack, OWNER, PR)
  expect(messagesOf(h.slack, OWNER, PR)).toHaveLength(1)
  expect(message!.text).toBe(await storedText())
  expect(statusOf(message!)).toBe(FULL_STATUS)
  expect([...message!.reactions].sort()).toEqual(FULL_REACTIONS)
  expect(await pendingCount()).toBe(0)
}, 60_000)

it('a reaction on its way when the lock went: the batch does not commit its older state over the final one', async () => {
  await holdThenLoseLock('reactions.add')
  // Replica a either finds its lock gone, or (before the fix) saves its older state over the final one.
  const lastDelivery = async () => (await sql<{ id: string }>(`SELECT last_delivery_id AS id FROM slack_messages WHERE pr_number = ${PR}`))[0]?.id
  await waitFor('replica a to end its batch', async () => cluster().replicas[0]!.entries().some((e) => String(e.error ?? '').includes("holding this pull request's lock broke"))
    || await lastDelivery() === prDeliveries(OWNER, PR)[1]!.deliveryId, 15_000)
  // And its retry, a second later, finds nothing to change: the retry's batch has run (and succeeded) before the checks.
  await waitFor('replica a\'s retry to go through', () => cluster().replicas[0]!.entries().some((e) => e.msg === 'pull request batch succeeded after a failed one'), 15_000)
  const [message] = messagesOf(h.slack, OWNER, PR)
  expect(messagesOf(h.slack, OWNER, PR)).toHaveLength(1)
  expect(statusOf(message!)).toBe(FULL_STATUS)
  expect(message!.text).toBe(await storedText())
  expect([...message!.reactions].sort()).toEqual(FULL_REACTIONS)
}, 60_000)
