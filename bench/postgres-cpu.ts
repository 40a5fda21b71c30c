import { readdirSync } from 'node:fs'
import pg from 'pg'
import { cpuMs, procStatFields, ticksMs } from './processes.ts'
import { queryOnce } from './query-once.ts'

/** The postmaster's process id: the parent of the backend serving a connection of our own. */
export async function postmasterPid(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
    return Number(procStatFields(backend)[1])
  } finally {
    await client.end()
  }
}

/**
 * CPU time, in ms, the whole PostgreSQL server has used so far: the postmaster, every live child (backends,
 * checkpointer, WAL writer, autovacuum) and every child already ended and reaped (cutime and cstime, /proc's
 * fields 16 and 17: "time that this process's waited-for children have been scheduled", proc(5)).
 */
export function postgresCpuMs(postmaster: number): number {
  const own = procStatFields(postmaster)
  let total = cpuMs(postmaster) + ticksMs(own[13]) + ticksMs(own[14])
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (Number(procStatFields(Number(name))[1]) === postmaster) total += cpuMs(Number(name))
    } catch { /* ended while listed */ }
  }
  return total
}

export interface StatementCount { calls: number; query: string }

/** Clears pg_stat_statements (loaded by the bench's server), so the next read counts one run only. */
export async function resetStatements(adminUrl: string): Promise<void> {
  await queryOnce(adminUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  await queryOnce(adminUrl, 'SELECT pg_stat_statements_reset()')
}

/** Statements run in one database since the last reset, most called first. */
export async function statementCounts(adminUrl: string, database: string): Promise<StatementCount[]> {
  const rows = await queryOnce<{ calls: string; query: string }>(adminUrl,
    'SELECT calls, query FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) ORDER BY calls DESC', [database])
  return rows.map((r) => ({ calls: Number(r.calls), query: r.query.replace(/\s+/g, ' ') }))
}

/** Sessions (connections) ever opened to one database: pg_stat_database's `sessions` (PostgreSQL 14 and later). */
export async function sessionsOf(adminUrl: string, database: string): Promise<number> {
  const rows = await queryOnce<{ sessions: string }>(adminUrl, 'SELECT sessions FROM pg_stat_database WHERE datname = $1', [database])
  return Number(rows[0]?.sessions)
}
