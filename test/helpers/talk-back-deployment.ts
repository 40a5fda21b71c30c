import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { FakeAccount, FakeHostKind, FakeOAuthHost } from './fake-oauth.ts'
import type { FakeSlack } from './fake-slack.ts'
import { freePort } from './free-port.ts'
import { startReplicaSet } from './replica-set.ts'
import type { SpawnedServer } from './spawn-prherald.ts'
import { waitFor, writeConfig, type TestConfig } from './start-prherald.ts'
import { talkBackEnv } from './talk-back-setup.ts'

/** One replica on a SQLite file, or two on one PostgreSQL database (issue 33's "Done when"). */
export type ScenarioBackend = 'sqlite' | 'postgres'

/**
 * A talk-back deployment as an operator runs it, for the end-to-end scenario: real prherald-server processes
 * (one on SQLite, two on PostgreSQL) with the fake Slack and the host's fake OAuth server and API, every
 * OAuth variable set, PRHERALD_PUBLIC_URL on the last replica (so on PostgreSQL the OAuth pages are served by
 * the replica that did not answer the command).
 */
export interface TalkBackDeployment {
  slack: FakeSlack
  fake: FakeOAuthHost
  /** Where Slack and the host send first. */
  first: SpawnedServer
  /** Where retries, the browser and the modal's submission go: the other replica, or the only one. */
  other: SpawnedServer
  /** Until every delivery acknowledged (webhooks and Slack's thread replies alike) has been applied. */
  settle(): Promise<void>
  /** The rows of linked_accounts, as stored. */
  linkedAccounts(): Promise<Array<{ slack_user: string; host: string; login: string }>>
  /** Every replica's JSON log lines. */
  entries(): Array<Record<string, unknown>>
  logs(): string
  close(): Promise<void>
}

export async function startTalkBackDeployment(options: {
  kind: FakeHostKind
  backend: ScenarioBackend
  accounts: FakeAccount[]
  config: TestConfig
}): Promise<TalkBackDeployment> {
  const { kind, backend } = options
  const set = await startReplicaSet({ backend, oauth: { kind, accounts: options.accounts } })
  let pool: pg.Pool | undefined
  const close = async () => {
    await set.stop()
    await pool?.end()
    await set.close()
  }
  try {
    if (backend === 'postgres') {
      pool = new pg.Pool({ connectionString: set.database.url, max: 2 })
      // Dropping the database at the end ends a connection the pool may still be closing: not a failure.
      pool.on('error', () => {})
    }
    writeConfig(set.dir.path, { ...options.config, server: { log_format: 'json' } })
    const ports = await Promise.all(Array.from({ length: backend === 'postgres' ? 2 : 1 }, () => freePort()))
    // One key for every replica: what one seals, the other opens.
    const variables = talkBackEnv(set.fake, { publicUrl: `http://127.0.0.1:${ports.at(-1)}` })
    // The first validates the configuration and writes config.lock; the other finds it current.
    for (const port of ports) await set.spawn(set.env(kind, { ...variables, PRHERALD_LISTEN: `127.0.0.1:${port}` }))
  } catch (error) {
    await close()
    throw error
  }

  const read = async <Row>(sql: string): Promise<Row[]> => {
    if (pool) return (await pool.query(sql)).rows as Row[]
    const db = new Database(join(set.dir.path, 'prherald.db'), { readonly: true })
    try { return db.prepare(sql).all() as Row[] } finally { db.close() }
  }
  const { replicas } = set
  return {
    slack: set.slack, fake: set.fake, first: replicas[0]!, other: replicas.at(-1)!,
    settle: () => waitFor('every delivery applied', async () =>
      Number((await read<{ n: number | string }>('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]!.n) === 0, 20_000),
    linkedAccounts: () => read('SELECT slack_user, host, login FROM linked_accounts ORDER BY slack_user, host'),
    entries: () => replicas.flatMap((r) => r.entries()),
    logs: () => replicas.flatMap((r) => r.lines).join('\n'),
    close,
  }
}
