import type { Settings } from '../config/settings.ts'
import { hostMappings } from '../routing/resolve-route.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { Logger } from '../log/logger.ts'
import { migrateUp, migrationStatus } from '../store/migrations.ts'
import { openDatabase } from '../store/open-database.ts'
import { acquireServerLock } from '../store/server-lock.ts'
import { createSqliteStore } from '../store/sqlite-store.ts'
import { createOutbound } from '../worker/create-outbound.ts'
import { createOutbox } from '../slack/outbox.ts'
import { DEFAULT_RETRY } from '../slack/retry-transient.ts'
import { DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-api.ts'
import { runDigest, type DigestRunRequest, type DigestRunResult } from './run-digest.ts'
import { buildWeeklyPost, weeklyFigureDeps, type WeeklyPost } from '../insights/post-weekly.ts'

export interface LocalDigestDeps {
  settings: Settings
  slackToken: string
  logger: Logger
  /** The control socket that did not answer, for the message when a server holds the lock anyway. */
  controlPath: string | undefined
}

/**
 * prherald-digest with no server to hand the run to: works on the database itself. A dry run only reads (and
 * refuses a database whose migrations are pending rather than migrate it under a running older server); a
 * posting run holds the server lock for its whole length, as a server would, so no server starts beside it.
 */
export async function runDigestLocally(deps: LocalDigestDeps, request: DigestRunRequest): Promise<DigestRunResult> {
  const { settings, logger } = deps
  if (settings.database.kind !== 'sqlite') {
    // PostgreSQL replicas have no control socket and apply deliveries under per-pull-request locks that this direct
    // path does not take; the scheduled digest runs once per cluster there (store.claimRun).
    throw new PrheraldError('config_invalid', 'prherald-digest works on a SQLite database only; with PostgreSQL the replicas post the scheduled digest', {
      fix: 'with PostgreSQL, let the servers post it on digest.schedule, or use --dry-run against a SQLite copy',
    })
  }
  const databasePath = settings.database.path
  const lock = request.dryRun ? undefined : holdServerLock(databasePath, deps.controlPath)
  const shutdown = new AbortController()
  let db
  try {
    db = openLocalDatabase(databasePath, lock !== undefined)
    const store = createSqliteStore(db)
    const { slack, pacer, sleep } = createOutbound({ settings, secrets: { slackBotToken: deps.slackToken }, logger, signal: shutdown.signal })
    const outbox = createOutbox({ store, slack, logger, retry: DEFAULT_RETRY, sleep, settleMs: DEFAULT_SLACK_TIMEOUT_MS })
    return await runDigest({ store, outbox, pacer, logger, mappings: hostMappings(settings.hosts), digest: settings.digest }, request)
  } finally {
    shutdown.abort()
    db?.close()
    lock?.release()
  }
}

/**
 * `prherald-digest --weekly --dry-run`: the weekly summary as of `at` from the database's turnaround rows, its
 * text and its chart, posting nothing. Reads a SQLite database as a dry run of the digest does.
 */
export async function weeklyDryRun(settings: Settings, at: number): Promise<WeeklyPost> {
  if (settings.database.kind !== 'sqlite') {
    throw new PrheraldError('config_invalid', 'prherald-digest --weekly --dry-run reads a SQLite database only', {
      fix: 'run it against a SQLite copy (prherald-migrate copy makes PostgreSQL from SQLite, not back), or read the weekly post the servers make',
    })
  }
  const db = openLocalDatabase(settings.database.path, false)
  try {
    return await buildWeeklyPost(weeklyFigureDeps(settings, createSqliteStore(db)), at)
  } finally {
    db.close()
  }
}

/** The database, migrated when this command holds the server lock; otherwise only read, and refused while migrations are pending. */
function openLocalDatabase(databasePath: string, migrate: boolean) {
  const db = openDatabase(databasePath)
  if (migrate) migrateUp(db)
  else if (migrationStatus(db).some((m) => m.appliedAt === undefined)) {
    db.close()
    throw new PrheraldError('migration', `the database ${databasePath} has pending migrations`, {
      fix: 'run prherald-migrate up (or start prherald-server once), then run prherald-digest again',
    })
  }
  return db
}

function holdServerLock(databasePath: string, controlPath: string | undefined) {
  try {
    return acquireServerLock(databasePath)
  } catch (error) {
    if (!isPrheraldError(error, 'database_in_use')) throw error
    throw new PrheraldError('database_in_use', `a prherald-server uses the database ${databasePath}, but its control channel ${controlPath ?? '(none)'} does not answer`, {
      cause: error,
      fix: 'the server logs "control channel not started" with the reason; fix it and restart the server, or stop the server and run prherald-digest again',
    })
  }
}
