import { setTimeout as sleep } from 'node:timers/promises'
import type { FakeSlack } from '../test/helpers/fake-slack.ts'
import { pullRequestAffineBurst, shuffledBurst, type Sign } from './correctness-burst.ts'
import { runLoad, type Delivery, type LoadResult } from './load.ts'
import { postgresCpuMs, resetStatements, sessionsOf, statementCounts } from './postgres-cpu.ts'
import { cpuMs, spawnListening, type Child } from './processes.ts'
import { queryOnce } from './query-once.ts'

export interface ReplicaBenchOptions {
  replicas: number
  /** A new, empty database for this run (the replicas migrate it up as they start). */
  databaseUrl: string
  slack: FakeSlack
  sign: Sign
  prs: number
  /** Pull requests of a burst sent first and not measured (0: none): the replicas' JIT and connections warm. */
  warmupPrs: number
  /**
   * How the burst is shared: `round-robin` (delivery i to replica i mod n, so a pull request's deliveries
   * land on every replica), `affine` (each pull request's deliveries all to one replica: nothing shared,
   * nothing to coordinate), `one-at-a-time` (affine, and each replica's share sent only once the one before
   * has settled: no two replicas busy at once, as on cores of their own).
   */
  shares: BurstShares
  concurrency: number
  /** prherald-server's environment, less PRHERALD_DATABASE_URL. */
  env: NodeJS.ProcessEnv
  idleTimeoutSeconds: number
  /** The server's admin connection and postmaster: CPU and pg_stat_statements are read through them. */
  adminUrl: string
  postmaster: number
  database: string
}

export type BurstShares = 'round-robin' | 'affine' | 'one-at-a-time'
const SHARES: readonly BurstShares[] = ['round-robin', 'affine', 'one-at-a-time']

/** BENCH_PG_SHARES: round-robin when unset. */
export function burstShares(value: string | undefined): BurstShares {
  if (value === undefined || value === '') return 'round-robin'
  if ((SHARES as readonly string[]).includes(value)) return value as BurstShares
  throw new Error(`BENCH_PG_SHARES=${value}: use one of ${SHARES.join(', ')}`)
}

export interface ReplicaBenchReport {
  ok: boolean
  lines: string[]
  /** CPU of every replica and the whole PostgreSQL server, burst start to quiet, per delivery sent (ms). */
  cpuMsPerDelivery: number
}

/** How many statements of the run to list, most called first. */
const TOP_STATEMENTS = 14
const IDLE_SAMPLE_MS = 2000

async function pendingIn(databaseUrl: string): Promise<number> {
  return Number((await queryOnce<{ n: string }>(databaseUrl, 'SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]?.n)
}

/**
 * `replicas` prherald-server processes on one PostgreSQL database behind a round-robin sender (delivery i
 * to replica i mod n): the correctness burst's six deliveries per PR in random order, so a PR's deliveries,
 * and the retry of its `opened` under the same delivery id, land on different replicas. Then: every PR has
 * exactly one message and nothing is left pending.
 */
export async function runReplicaBench(options: ReplicaBenchOptions): Promise<ReplicaBenchReport> {
  const { slack, prs } = options
  const env = { ...options.env, PRHERALD_DATABASE_URL: options.databaseUrl }
  // One after the other: the first migrates the database, the others find it done (they would wait on its lock anyway).
  const servers: Child[] = []
  try {
    for (let i = 0; i < options.replicas; i++) servers.push(await spawnListening('dist/src/cli/server.js', [], env))
    // Round-robin, then done when Slack has been quiet for a second and the database holds nothing pending (bounded).
    const sendAndSettle = async (burst: Delivery[]) => {
      const t0 = Date.now()
      const acks = await runLoad(servers.map((s) => `${s.url}/webhook/github`), (i) => burst[i]!, { total: burst.length, concurrency: options.concurrency, maxSeconds: 60 })
      let pending = -1
      let lastCalls = -1
      let idleSince = Date.now()
      while (Date.now() - t0 < options.idleTimeoutSeconds * 1000) {
        await sleep(250)
        if (slack.calls.length !== lastCalls) [lastCalls, idleSince] = [slack.calls.length, Date.now()]
        if (Date.now() - idleSince < 1000) continue
        pending = await pendingIn(options.databaseUrl)
        if (pending === 0) break
      }
      return { acks, pending, doneS: (idleSince - t0) / 1000 }
    }
    // The warm-up's pull requests are numbered after the measured ones, so that its messages are not counted.
    if (options.warmupPrs > 0) await sendAndSettle(shuffledBurst(options.warmupPrs, options.sign, prs + 1))
    const burst = options.shares === 'round-robin' ? shuffledBurst(prs, options.sign) : pullRequestAffineBurst(prs, options.sign, options.replicas)
    slack.calls.length = 0
    slack.messages.clear()
    await resetStatements(options.adminUrl)
    const replicasCpu = () => servers.reduce((sum, s) => sum + cpuMs(s.child.pid), 0)
    // What the replicas and the server spend doing nothing (timers, polling, leases), per second, over 2 s idle.
    const idle0 = [replicasCpu(), postgresCpuMs(options.postmaster)]
    await sleep(IDLE_SAMPLE_MS)
    const idleMsPerS = [replicasCpu() - idle0[0]!, postgresCpuMs(options.postmaster) - idle0[1]!].map((ms) => (ms / IDLE_SAMPLE_MS) * 1000)
    const sessions0 = await sessionsOf(options.adminUrl, options.database)
    const cpu0 = [replicasCpu(), postgresCpuMs(options.postmaster)]
    const { acks, pending, doneS } = options.shares === 'one-at-a-time' ? await oneAtATime(burst, options.replicas, sendAndSettle) : await sendAndSettle(burst)
    // Up to the moment the run is seen done: the replicas' idle polling of that last second is counted too.
    const cpuMsSpent = [replicasCpu() - cpu0[0]!, postgresCpuMs(options.postmaster) - cpu0[1]!]
    const cpuTotalMs = cpuMsSpent[0]! + cpuMsSpent[1]!
    const statements = await statementCounts(options.adminUrl, options.database)
    const sessions = await sessionsOf(options.adminUrl, options.database) - sessions0
    const allStatements = statements.reduce((sum, s) => sum + s.calls, 0)
    const perDelivery = (n: number) => (n / burst.length).toFixed(2)
    const perPr = new Map<number, number>()
    for (const m of slack.messages.values()) {
      const n = Number(/#(\d+):/.exec(m.text)?.[1])
      perPr.set(n, (perPr.get(n) ?? 0) + 1)
    }
    const counts = Array.from({ length: prs }, (_, i) => perPr.get(i + 1) ?? 0)
    const exactlyOne = counts.filter((c) => c === 1).length
    const calls = slack.calls.filter((c) => c.method !== 'auth.test' && c.method !== 'conversations.info')
    const ok = acks.completed === burst.length && exactlyOne === prs && pending === 0
    return {
      ok,
      cpuMsPerDelivery: cpuTotalMs / burst.length,
      lines: [
        `  acknowledged ${acks.completed}/${burst.length} with 200 (${acks.perSecond.toFixed(0)} deliveries/s, p50 ${acks.p50.toFixed(2)} ms, p99 ${acks.p99.toFixed(2)} ms)`,
        `  Slack calls ${calls.length} (${(calls.length / prs).toFixed(2)} per PR): chat.postMessage ${slack.count('chat.postMessage')}, chat.update ${slack.count('chat.update')}, `
          + `reactions.add ${slack.count('reactions.add')}, reactions.remove ${slack.count('reactions.remove')}, conversations.history ${slack.count('conversations.history')}`,
        `  messages per PR: exactly 1 for ${exactlyOne}/${prs}, none for ${counts.filter((c) => c === 0).length}, more than 1 for ${counts.filter((c) => c > 1).length}`,
        `  deliveries still pending in the database: ${pending < 0 ? 'unknown (Slack never went quiet)' : pending}; Slack quiet ${doneS.toFixed(1)} s after the burst began`,
        `  CPU of the replicas and PostgreSQL together: ${cpuTotalMs.toFixed(0)} ms, ${(cpuTotalMs / burst.length).toFixed(2)} ms per delivery `
          + `(replicas ${cpuMsSpent[0]!.toFixed(0)} ms, PostgreSQL ${cpuMsSpent[1]!.toFixed(0)} ms); idle before the burst: replicas ${idleMsPerS[0]!.toFixed(1)} ms/s, PostgreSQL ${idleMsPerS[1]!.toFixed(1)} ms/s`,
        `  connections opened during the run: ${sessions}; statements in the database: ${allStatements} (${perDelivery(allStatements)} per delivery); most called:`,
        ...statements.slice(0, TOP_STATEMENTS).map((st) => `    ${perDelivery(st.calls)}/delivery  ${st.query.slice(0, 110)}`),
        `  ${options.replicas} replica${options.replicas > 1 ? 's' : ''}: ${ok ? 'PASS' : 'FAIL'}`,
      ],
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

type Settled = { acks: LoadResult; pending: number; doneS: number }

/** Each replica's share of an affine burst in turn, the next once the last has settled: the runs added up. */
async function oneAtATime(burst: Delivery[], replicas: number, sendAndSettle: (share: Delivery[]) => Promise<Settled>): Promise<Settled> {
  const runs: Settled[] = []
  for (let r = 0; r < replicas; r++) runs.push(await sendAndSettle(burst.filter((d) => d.target === r)))
  const sum = (f: (run: Settled) => number) => runs.reduce((total, run) => total + f(run), 0)
  return {
    acks: {
      completed: sum((run) => run.acks.completed), failed: sum((run) => run.acks.failed), seconds: sum((run) => run.acks.seconds),
      failures: mergedFailures(runs.map((run) => run.acks.failures)),
      perSecond: sum((run) => run.acks.completed) / sum((run) => run.acks.seconds),
      p50: Math.max(...runs.map((run) => run.acks.p50)), p99: Math.max(...runs.map((run) => run.acks.p99)),
    },
    pending: runs.at(-1)!.pending,
    doneS: sum((run) => run.doneS),
  }
}

function mergedFailures(all: Array<Record<string, number>>): Record<string, number> {
  const merged: Record<string, number> = {}
  for (const failures of all) for (const [why, n] of Object.entries(failures)) merged[why] = (merged[why] ?? 0) + n
  return merged
}
