import { afterEach, beforeEach } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeOAuthHost, type FakeAccount, type FakeHostKind, type FakeOAuthHost } from './fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import { createTestDatabase, type TestDatabase } from './postgres.ts'
import { TEST_SLACK_SIGNING_SECRET } from './slack-interaction.ts'
import { killServer, spawnServer, type SpawnedServer } from './spawn-prherald.ts'
import { testEnv } from './start-prherald.ts'
import { makeTempDir } from './temp-dir.ts'

/**
 * What real prherald-server replicas share: one config directory, the fake Slack (any channel), a PostgreSQL
 * database unless they run on the directory's SQLite file, and the host's fake OAuth server and API when asked.
 */
export interface ReplicaSet {
  dir: ReturnType<typeof makeTempDir>
  slack: FakeSlack
  /** The PostgreSQL database (an error on SQLite). */
  readonly database: TestDatabase
  /** The host's fake OAuth server and API (an error unless `oauth` was asked for). */
  readonly fake: FakeOAuthHost
  /** The replicas spawned, in order (a killed one stays listed). */
  replicas: SpawnedServer[]
  /** testEnv with the fake Slack, its signing secret and the database; `extra` last. */
  env(provider: Provider, extra?: Env): Env
  spawn(env: Env): Promise<SpawnedServer>
  /** Kills every replica; the fakes and the database stay. */
  stop(): Promise<void>
  close(): Promise<void>
}

export interface ReplicaSetOptions {
  backend: 'sqlite' | 'postgres'
  oauth?: { kind: FakeHostKind; accounts?: FakeAccount[] }
}

export async function startReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const dir = makeTempDir()
  const replicas: SpawnedServer[] = []
  let slack: FakeSlack | undefined
  let fake: FakeOAuthHost | undefined
  let database: TestDatabase | undefined
  const stop = async () => { await Promise.all(replicas.splice(0).map((r) => killServer(r))) }
  const close = async () => {
    await stop()
    await slack?.close()
    await fake?.close()
    await database?.drop()
    dir.remove()
  }
  try {
    if (options.backend === 'postgres') database = await createTestDatabase()
    slack = await startFakeSlack({ anyChannel: true })
    if (options.oauth) fake = await startFakeOAuthHost(options.oauth.kind, options.oauth.accounts ? { accounts: options.oauth.accounts } : {})
  } catch (error) {
    await close()
    throw error
  }
  const shared = slack
  return {
    dir, slack, replicas, stop, close,
    get database() { return database ?? fail('the replicas run on SQLite: no PostgreSQL database') },
    get fake() { return fake ?? fail('no fake OAuth host: pass `oauth`') },
    env: (provider, extra = {}) => testEnv(dir.path, provider, {
      SLACK_API_URL: shared.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
      ...(database ? { PRHERALD_DATABASE_URL: database.url } : {}), ...extra,
    }),
    spawn: async (env) => {
      const replica = await spawnServer(env)
      replicas.push(replica)
      return replica
    },
  }
}

const fail = (message: string): never => { throw new Error(message) }

/** A replica set for each test: started before it, closed after it (a failed assertion leaks nothing). */
export function useReplicaSet(options: ReplicaSetOptions): () => ReplicaSet {
  let set: ReplicaSet | undefined
  beforeEach(async () => { set = await startReplicaSet(options) })
  afterEach(async () => {
    await set?.close()
    set = undefined
  })
  return () => set!
}

/**
 * `n` replicas of a harness's server (its config, its fake Slack) on a PostgreSQL database of their own for
 * each test, started one after the other (the first migrates); killed, and the database dropped, after it.
 */
export function usePostgresReplicas(h: { env(extra?: Env): Env }, n: number): () => { database: TestDatabase; replicas: SpawnedServer[] } {
  let database: TestDatabase | undefined
  const replicas: SpawnedServer[] = []
  beforeEach(async () => {
    database = await createTestDatabase()
    for (let i = 0; i < n; i++) replicas.push(await spawnServer(h.env({ PRHERALD_DATABASE_URL: database.url })))
  })
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => killServer(r)))
    await database?.drop()
    database = undefined
  })
  return () => ({ database: database!, replicas })
}
