import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { hostOf } from '../../src/hosts/registry.ts'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeOAuthHost, type FakeAccount, type FakeHostKind, type FakeOAuthHost } from './fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import { freePort } from './free-port.ts'
import { createTestDatabase, type TestDatabase } from './postgres.ts'
import { TEST_SLACK_SIGNING_SECRET } from './slack-interaction.ts'
import { killServer, spawnServer, type SpawnedServer } from './spawn-prherald.ts'
import { testEnv, waitFor, writeConfig, type TestConfig } from './start-prherald.ts'
import { makeTempDir } from './temp-dir.ts'

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
  const dir = makeTempDir()
  const slack = await startFakeSlack({ anyChannel: true })
  const fake = await startFakeOAuthHost(kind, { accounts: options.accounts })
  let database: TestDatabase | undefined
  let pool: pg.Pool | undefined
  const replicas: SpawnedServer[] = []
  const close = async () => {
    await Promise.all(replicas.map((r) => killServer(r)))
    await pool?.end()
    await slack.close()
    await fake.close()
    await database?.drop()
    dir.remove()
  }
  try {
    if (backend === 'postgres') {
      database = await createTestDatabase()
      pool = new pg.Pool({ connectionString: database.url, max: 2 })
      // Dropping the database at the end ends a connection the pool may still be closing: not a failure.
      pool.on('error', () => {})
    }
    writeConfig(dir.path, { ...options.config, server: { log_format: 'json' } })
    const ports = await Promise.all(Array.from({ length: backend === 'postgres' ? 2 : 1 }, () => freePort()))
    const host = hostOf(kind)
    const talkBack = host.talkBack!
    const env = (port: number): Env => testEnv(dir.path, kind, {
      SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
      ...(database ? { PRHERALD_DATABASE_URL: database.url } : {}),
      PRHERALD_LISTEN: `127.0.0.1:${port}`, PRHERALD_PUBLIC_URL: `http://127.0.0.1:${ports.at(-1)}`,
      PRHERALD_TOKEN_KEY: randomBytes(32).toString('base64'),
      [talkBack.variables.clientId]: fake.client.clientId, [talkBack.variables.clientSecret]: fake.client.clientSecret,
      ...(talkBack.variables.webUrl ? { [talkBack.variables.webUrl]: fake.url } : {}),
      [host.variables.apiUrl]: fake.apiUrl,
    })
    // One key for every replica: what one seals, the other opens.
    const first = env(ports[0]!)
    // The first validates the configuration and writes config.lock; the other finds it current.
    for (const port of ports) replicas.push(await spawnServer({ ...env(port), PRHERALD_TOKEN_KEY: first.PRHERALD_TOKEN_KEY }))
  } catch (error) {
    await close()
    throw error
  }

  const read = async <Row>(sql: string): Promise<Row[]> => {
    if (pool) return (await pool.query(sql)).rows as Row[]
    const db = new Database(join(dir.path, 'prherald.db'), { readonly: true })
    try { return db.prepare(sql).all() as Row[] } finally { db.close() }
  }
  return {
    slack, fake, first: replicas[0]!, other: replicas.at(-1)!,
    settle: () => waitFor('every delivery applied', async () =>
      Number((await read<{ n: number | string }>('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'))[0]!.n) === 0, 20_000),
    linkedAccounts: () => read('SELECT slack_user, host, login FROM linked_accounts ORDER BY slack_user, host'),
    entries: () => replicas.flatMap((r) => r.entries()),
    logs: () => replicas.flatMap((r) => r.lines).join('\n'),
    close,
  }
}
