import { expect, it } from 'vitest'
import { queryOnce } from '../../bench/query-once.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { usePostgresReplicas } from '../helpers/replica-set.ts'
import type { SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { expectOneCorrectMessage, messagesOf, prDeliveries } from '../faults/pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * The hand-over between replicas (src/worker/run-batch.ts), end to end: two real prherald-server processes
 * on one PostgreSQL database, the fake Slack holding replica a's Slack call so that a holds the pull
 * request's lock. Replica b's batch finds the lock held and ends at once (its mailbox empties while a still
 * holds it: before, it polled the lock until a was done), and a applies b's delivery after its own. The lease
 * is long, so that no sweep moves b's delivery while the test holds a.
 */
const CHANNEL = 'C0000000001'
const OWNER = 'Codertocat'
const PR = 7
const h = usePrherald({ slack: { anyChannel: true }, config: { server: { log_format: 'json' }, database: { lease_seconds: 60 }, mappings: { [OWNER]: { '*': { channel: CHANNEL } } } } })
const cluster = usePostgresReplicas(h, 2)

async function send(replica: SpawnedServer, delivery: ReturnType<typeof prDeliveries>[number]): Promise<void> {
  const response = await deliver(replica.url, 'github', delivery)
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ status: 'accepted' })
}

const pendingCount = async () => Number((await queryOnce<{ n: string }>(cluster().database.url, 'SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]!.n)

/** The deliveries in a replica's mailboxes, waiting or being applied, from its /metrics. */
async function queued(replica: SpawnedServer): Promise<number> {
  const found = /^prherald_queued_deliveries (\d+)/m.exec(await fetch(`${replica.url}/metrics`).then((r) => r.text()))
  if (!found) throw new Error('/metrics has no prherald_queued_deliveries')
  return Number(found[1])
}

/** Slack writes a replica logged for the pull request. */
const slackWrites = (replica: SpawnedServer) => replica.entries().filter((e) => e.msg === 'slack message posted' || e.msg === 'slack message changed')

it('a replica that finds the pull request locked leaves its delivery to the holder at once; the holder applies it: one message, nothing pending', async () => {
  const [opened, approved, commented] = prDeliveries(OWNER, PR)
  const [a, b] = cluster().replicas as [SpawnedServer, SpawnedServer]
  await send(a, opened!)
  await waitFor('the announcement', async () => messagesOf(h.slack, OWNER, PR).length === 1 && await pendingCount() === 0)

  // a's batch of the approval holds its first Slack write, and with it the pull request's lock.
  let release!: () => void
  const until = new Promise<void>((resolve) => { release = resolve })
  for (const method of ['chat.update', 'reactions.add']) h.slack.faults.push({ method, fault: { until } })
  const held = new Promise<void>((resolve) => { h.slack.onCall = (method) => { if (method === 'chat.update' || method === 'reactions.add') resolve() } })
  await send(a, approved!)
  await held

  await send(b, commented!)
  await waitFor('b\'s batch to end while a holds the lock', async () => await queued(b) === 0, 20_000)
  expect(await queued(a)).toBeGreaterThan(0)
  expect(await pendingCount()).toBe(2)

  h.slack.faults.length = 0
  release()
  await waitFor('both deliveries applied', async () => await pendingCount() === 0 && await queued(a) === 0, 20_000)
  expectOneCorrectMessage(h.slack, OWNER, PR, CHANNEL)
  expect(h.slack.count('chat.postMessage')).toBe(1)
  // b wrote nothing to Slack: a's batch after its own took b's delivery.
  expect(slackWrites(b)).toEqual([])
  expect(slackWrites(a).length).toBeGreaterThan(1)
}, 60_000)
