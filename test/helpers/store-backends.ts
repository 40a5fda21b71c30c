import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createTestSchema, type TestDatabase } from './postgres.ts'
import { makeTempDir } from './temp-dir.ts'

/**
 * The two stores a contract test runs on: a new SQLite file, or a new schema in the test file's PostgreSQL
 * database (`postgres()` returns it: created in the file's beforeAll).
 */
export function storeBackends(postgres: () => TestDatabase): Backend[] {
  return [
    {
      name: 'sqlite',
      async create() {
        const dir = makeTempDir()
        const path = join(dir.path, 'prherald.db')
        return {
          async open(now) {
            const db = openDatabase(path)
            migrateUp(db)
            return createSqliteStore(db, now)
          },
          async remove() { dir.remove() },
        }
      },
    },
    {
      name: 'postgres',
      async create() {
        const database = await createTestSchema(postgres())
        return {
          async open(now) {
            const pool = await openPostgresPool({ url: database.url, onIdleError: () => {} })
            await postgresMigrateUp(pool)
            return createPostgresStore({ pool, now })
          },
          remove: () => database.drop(),
          url: database.url,
        }
      },
    },
  ]
}

export interface Backend {
  name: string
  /** A fresh, migrated database; `open` may be called again to reach the same data from a new store. */
  create(): Promise<{ open(now: () => number): Promise<Store>; remove(): Promise<void>; url?: string }>
}


/**
 * Two stores over one fresh database of `backend` for each test (two replicas' worth, on SQLite two handles
 * on one file), on the test's clock; closed and the database removed after it.
 */
export function useTwoStores(backend: Backend, now: () => number): () => { store: Store; other: Store } {
  let db: Awaited<ReturnType<Backend['create']>> | undefined
  let stores: { store: Store; other: Store } | undefined
  beforeEach(async () => {
    db = await backend.create()
    stores = { store: await db.open(now), other: await db.open(now) }
  })
  afterEach(async () => {
    await stores?.store.close()
    await stores?.other.close()
    await db?.remove()
    stores = undefined
  })
  return () => stores!
}
