import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { expectOneCorrectMessage, isComplete, prDeliveries } from '../faults/pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 17, "Done when": three real prherald-server processes on one PostgreSQL database (a fresh one per
 * test on the run's server), one fake Slack. Deliveries for each pull request go out in order (each one
 * acknowledged before the next), every one to a replica picked at random (seeded), some also to a second
 * replica at the same time; pull requests are interleaved in random order. Counts, not timings.
 */

const CHANNEL = 'C0000000001'
const OWNER = 'Codertocat'
// A short lease (docs/configuration.md, database.lease_seconds) so that a dead replica's work moves in seconds.
const h = usePrherald({ slack: { anyChannel: true }, config: { server: { log_format: 'json' }, database: { lease_seconds: 2 }, mappings: { [OWNER]: { '*': { channel: CHANNEL } } } } })
let database: TestDatabase
let replicas: SpawnedServer[]

beforeEach(async () => {
  database = await createTestDatabase()
  replicas = []
})
afterEach(async () => {
  await Promise.all(replicas.map((r) => killServer(r)))
  await database.drop()
})

/** The database URL without its password, which the replicas get through PGPASSWORD; replica 0 gets it inside PRHERALD_DATABASE_URL. */
function databaseEnv(index: number): Record<string, string> {
  const url = new URL(database.url)
  const password = decodeURIComponent(url.password)
  url.password = ''
  return index === 0 ? { PRHERALD_DATABASE_URL: database.url } : { PRHERALD_DATABASE_URL: url.toString(), PGPASSWORD: password }
}
const databasePassword = () => decodeURIComponent(new URL(database.url).password)

async function startReplicas(n: number): Promise<SpawnedServer[]> {
  const env = (i: number) => h.env({ ...databaseEnv(i) })
  // The first validates the mapping and writes config.lock; the others find it current and start together.
  replicas.push(await spawnServer(env(0)))
  replicas.push(...await Promise.all(Array.from({ length: n - 1 }, (_, i) => spawnServer(env(i + 1)))))
  return replicas
}

/** A small seeded generator (mulberry32): the same "random" order on every run. */
function seeded(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Burst {
  /** Each delivery id with the replicas that answered `accepted` for it. */
  accepted: Map<string, number>
  sent: number
}

/**
 * Sends every delivery of `prs`, at most `parallel` pull requests at a time, each pull request's deliveries
 * in order, each to `pick()`'s replica, and every fifth one to a second replica too. Every answer must be 200.
 */
async function burst(prs: number[], targets: () => SpawnedServer[], random: () => number, parallel = 24): Promise<Burst> {
  const result: Burst = { accepted: new Map(), sent: 0 }
  const queue = [...prs]
  let count = 0
  const send = async (server: SpawnedServer, d: ReturnType<typeof prDeliveries>[number]) => {
    let response: Response
    for (let attempt = 1; ; attempt++) {
      try {
        response = await deliver(server.url, 'github', d)
        break
      } catch (error) {
        // The answer was lost (a keep-alive connection the server closed as the request went out, on a loaded
        // machine): the git host redelivers, and so does this. The redelivery may find it recorded: a duplicate.
        if (attempt === 3) throw error
      }
    }
    expect(response.status, `${d.deliveryId} at ${server.url}`).toBe(200)
    const body = await response.json() as { status: string; reason?: string }
    if (body.status === 'accepted') result.accepted.set(d.deliveryId, (result.accepted.get(d.deliveryId) ?? 0) + 1)
    else expect(body).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    result.sent++
  }
  const worker = async () => {
    for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
      for (const d of prDeliveries(OWNER, n)) {
        const live = targets()
        const first = live[Math.floor(random() * live.length)]!
        const twice = ++count % 5 === 0 && live.length > 1
        const second = live[(live.indexOf(first) + 1 + Math.floor(random() * (live.length - 1))) % live.length]!
        await Promise.all(twice ? [send(first, d), send(second, d)] : [send(first, d)])
      }
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return result
}

function shuffled(values: number[], random: () => number): number[] {
  const out = [...values]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}
const pendingInDatabase = async () => Number((await query<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]!.n)

function expectNoCredentialLogged(servers: SpawnedServer[]): void {
  const password = databasePassword()
  expect(password.length).toBeGreaterThan(8)
  for (const server of servers) {
    expect(server.lines.length).toBeGreaterThan(0)
    expect(server.lines.filter((line) => line.includes(password))).toEqual([])
  }
}

describe('three replicas on one PostgreSQL database', () => {
  it('a burst for 200 pull requests in random order, some deliveries sent to two replicas: exactly one message per pull request, in its final state', async () => {
    const servers = await startReplicas(3)
    const random = seeded(17)
    const prs = shuffled(Array.from({ length: 200 }, (_, i) => i + 1), random)

    const sent = await burst(prs, () => servers, random)
    // No delivery id was accepted twice: its second copy was a duplicate wherever it went. Each is recorded once.
    expect([...sent.accepted.values()].every((n) => n === 1)).toBe(true)
    expect(sent.sent).toBe(600 + 120)
    expect(Number((await query<{ n: string }>('SELECT count(*) AS n FROM deliveries'))[0]!.n)).toBe(600)

    await waitFor('every pull request complete', () => prs.every((n) => isComplete(h.slack, OWNER, n)), 60_000)
    await waitFor('nothing pending', async () => (await pendingInDatabase()) === 0, 20_000)
    for (const n of prs) expectOneCorrectMessage(h.slack, OWNER, n, CHANNEL)
    expect(h.slack.count('chat.postMessage')).toBe(200)
    const rows = await query<{ pr_number: number; state: string }>("SELECT pr_number, state FROM slack_messages WHERE channel <> ''")
    expect(rows).toHaveLength(200)
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['open']))
    // Work really was spread: every replica applied some of it.
    for (const server of servers) expect(server.entries().filter((e) => e.msg === 'slack message posted' || e.msg === 'slack message changed').length).toBeGreaterThan(0)
    expectNoCredentialLogged(servers)
  }, 120_000)

  it('one replica SIGKILLed mid-burst: no acknowledged delivery is lost, and the others finish its work', async () => {
    const servers = await startReplicas(3)
    const [a, b, victim] = servers as [SpawnedServer, SpawnedServer, SpawnedServer]
    const random = seeded(42)
    // Reactions are held until the kill, so that every batch has posted but none has committed: each
    // acknowledged delivery is still pending, the victim's among them.
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    for (let i = 0; i < 5000; i++) h.slack.faults.push({ method: 'reactions.add', fault: { until: held } })

    // Five pull requests are only ever sent to the victim: nobody but a replica taking over can finish them.
    const victimsOnly = [1, 2, 3, 4, 5]
    const before = shuffled(Array.from({ length: 25 }, (_, i) => i + 6), random)
    const after = shuffled(Array.from({ length: 30 }, (_, i) => i + 31), random)
    const first = await burst(victimsOnly, () => [victim], random, 5)
    const second = await burst(before, () => servers, random)
    // Batches are under way, their reactions held (each replica's parallel calls are all taken by them). A
    // batch of the victim's pull requests that carries a review or a comment needs a reaction, so it cannot
    // have committed: the victim dies holding at least those ten acknowledged deliveries.
    await waitFor('batches holding reactions', () => h.slack.count('reactions.add') >= 3, 30_000)
    const victimKeys = victimsOnly.map((n) => `'github:${OWNER}/Hello-World#${n}'`).join(', ')
    const victimPending = Number((await query<{ n: string }>(`SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL AND pr_key IN (${victimKeys})`))[0]!.n)
    expect(victimPending).toBeGreaterThanOrEqual(10)

    victim.child.kill('SIGKILL')
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' })
    h.slack.faults.length = 0
    release()

    // The burst goes on against the survivors.
    const third = await burst(after, () => [a, b], random)

    const all = [...victimsOnly, ...before, ...after]
    await waitFor('every pull request complete', () => all.every((n) => isComplete(h.slack, OWNER, n)), 60_000)
    await waitFor('nothing pending', async () => (await pendingInDatabase()) === 0, 20_000)
    // Every acknowledged delivery id is recorded as applied: none was lost with the victim.
    const applied = new Set((await query<{ delivery_id: string }>('SELECT delivery_id FROM deliveries WHERE applied_at IS NOT NULL')).map((r) => r.delivery_id))
    const acknowledged = [...first.accepted.keys(), ...second.accepted.keys(), ...third.accepted.keys()]
    expect(acknowledged.length).toBeGreaterThan(150) // 180 sent; only a lost answer's redelivery is a duplicate
    expect(acknowledged.filter((id) => !applied.has(id))).toEqual([])
    expect(applied.size).toBe(180)
    for (const n of all) expectOneCorrectMessage(h.slack, OWNER, n, CHANNEL)
    expect(h.slack.count('chat.postMessage')).toBe(all.length)
    const takenOver = [a, b].flatMap((s) => s.entries().filter((e) => e.msg === 'taking over deliveries another server left unfinished'))
    expect(takenOver.length).toBeGreaterThan(0)
    expectNoCredentialLogged(servers)
  }, 120_000)
})
