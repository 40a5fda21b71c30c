import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { PrheraldError } from '../../src/errors.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'

let database: TestDatabase
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())

const failure = (url: string) => openPostgresPool({ url, onIdleError: () => {} }).then(
  (pool) => { void pool.end(); throw new Error('expected the pool to fail') },
  (error: unknown) => error as PrheraldError,
)

describe('opening a PostgreSQL pool', () => {
  it('opens and answers a query', async () => {
    const pool = await openPostgresPool({ url: database.url, onIdleError: () => {} })
    try {
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      await pool.end()
    }
  })

  it('a connection the server drops while idle is reported, not a crash, and the pool goes on', async () => {
    const password = new URL(database.url).password
    let reported: (message: string) => void = () => {}
    const idleError = new Promise<string>((resolve) => { reported = resolve })
    const pool = await openPostgresPool({ url: database.url, onIdleError: (m) => reported(m) })
    const other = await openPostgresPool({ url: database.url, onIdleError: () => {} })
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid') // now idle in the pool
      await other.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid])
      const message = await idleError
      expect(message).toMatch(/terminat/i)
      expect(message).not.toContain(password)
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      await other.end()
      await pool.end()
    }
  })

  it('a wrong password is a database error that names the host, never the password', async () => {
    const url = new URL(database.url)
    url.password = 'wrong-Pa55word'
    const error = await failure(url.toString())
    expect(error).toBeInstanceOf(PrheraldError)
    expect(error.code).toBe('database')
    expect(error.message).toContain(`127.0.0.1:${url.port}`)
    expect(error.message).toContain('password authentication failed')
    expect(error.fix).toContain('PGPASSWORD')
    const printed = JSON.stringify({ message: error.message, fix: error.fix, cause: String(error.cause), stack: error.stack })
    expect(printed).not.toContain('wrong-Pa55word')
    expect(printed).not.toContain(new URL(database.url).password)
  })

  it('an unreachable server is a database error without the credentials', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const error = await failure(`postgres://app:hunter2-secret@127.0.0.1:${port}/prherald`)
    expect(error).toMatchObject({ code: 'database' })
    expect(error.message).toContain(`postgres://***@127.0.0.1:${port}/prherald`)
    expect(JSON.stringify({ m: error.message, s: error.stack, c: String(error.cause) })).not.toContain('hunter2-secret')
  })

  it('a missing database is a database error', async () => {
    const url = new URL(database.url)
    url.pathname = '/no_such_database'
    const error = await failure(url.toString())
    expect(error).toMatchObject({ code: 'database', message: expect.stringContaining('no_such_database') })
  })
})
