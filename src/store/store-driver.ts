import type { Statement } from './dialect.ts'

export type Param = string | number | null

/** One statement of src/store/queries.ts with its parameters. */
export type Step = readonly [Statement, readonly Param[]]

/**
 * How one engine runs the statements of src/store/queries.ts: all the one Store implementation
 * (src/store/create-store.ts) needs to know of better-sqlite3 or pg.
 */
export interface StoreDriver {
  /** The rows of one read; pg hands BIGINT and count(*) back as strings (src/store/store-rows.ts). */
  read<Row>(statement: Statement, params?: readonly Param[]): Promise<Row[]>
  /** Runs the steps in order in one transaction, committed on return; resolves with each one's changed-row count. */
  write(steps: readonly Step[]): Promise<number[]>
  close(): Promise<void>
}
