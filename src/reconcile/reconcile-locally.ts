import { readSlackSigningSecret, type Env } from '../config/load-config.ts'
import { gitSecrets } from '../hosts/contract.ts'
import { chooseHosts, connectHostsFromEnv } from '../config/connect-hosts.ts'
import type { Settings } from '../config/settings.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { createLogger } from '../log/logger.ts'
import { migrateUp } from '../store/migrations.ts'
import { openDatabase } from '../store/open-database.ts'
import { acquireServerLock, type ServerLock } from '../store/server-lock.ts'
import { createSqliteStore } from '../store/sqlite-store.ts'
import { PARALLEL_CALLS } from '../worker/create-outbound.ts'
import { createCallLimit } from '../worker/call-limit.ts'
import { createWorker } from '../worker/create-worker.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { reconcileApi, runReconcile, type ReconcileReport, type RunReconcileOptions } from './run-reconcile.ts'

/** The server lock, or why it cannot be had: a server holds it whose control channel did not answer. */
function lockOrExplain(databasePath: string): ServerLock {
  try {
    return acquireServerLock(databasePath)
  } catch (error) {
    if (!isPrheraldError(error, 'database_in_use')) throw error
    throw new PrheraldError('database_in_use', `a prherald-server holds the database ${databasePath} but its control socket does not answer`, {
      cause: error,
      fix: 'the server logged "control channel not started" with the reason (docs/control-channel.md); fix that and restart it, or stop it and rerun; --dry-run works either way',
    })
  }
}

export interface ReconcileRequest {
  dryRun: boolean
  /** owner/repo */
  repository?: string | undefined
  /** One host's id (`--provider`); undefined: every configured host. */
  provider?: string | undefined
}

export interface HostReconcileReport {
  /** The host's name, for the printed section. */
  host: string
  report: ReconcileReport
}

/**
 * prherald-reconcile's work when no server takes it: on the database directly. A run that changes messages
 * holds the server lock meanwhile, so no server starts and applies deliveries beside it; a dry run changes
 * nothing and needs no lock. Missed GitHub deliveries are listed, not redelivered: with no server running,
 * GitHub would only fail to deliver them again.
 */
export async function reconcileLocally(
  settings: Settings,
  env: Env,
  request: ReconcileRequest,
  extra: Pick<RunReconcileOptions, 'onWait' | 'clock' | 'maxWaitMs' | 'onChecked'> = {},
): Promise<HostReconcileReport[]> {
  const hosts = connectHostsFromEnv(settings.hosts, env)
  const chosen = chooseHosts(hosts, request.provider)
  for (const own of chosen) reconcileApi(own)
  const slackBotToken = env.SLACK_BOT_TOKEN ?? ''
  if (!request.dryRun && slackBotToken.trim() === '') {
    throw new PrheraldError('env_missing', 'SLACK_BOT_TOKEN is not set: reconcile edits the pull requests\' Slack messages', {
      fix: 'set SLACK_BOT_TOKEN (the bot token of your Slack app, xoxb-…), or run with --dry-run to only see what would change',
    })
  }
  if (settings.database.kind !== 'sqlite') {
    // On PostgreSQL replicas apply deliveries under per-pull-request locks that this direct path does not take.
    throw new PrheraldError('config_invalid', 'prherald-reconcile works on a SQLite database only (PostgreSQL replicas have no control socket yet)', {
      fix: 'with PostgreSQL, set reconcile.on_start: true so that the replicas reconcile at start-up',
    })
  }
  const databasePath = settings.database.path
  let lock: ServerLock | undefined
  if (!request.dryRun) lock = lockOrExplain(databasePath)
  const slackSigningSecret = readSlackSigningSecret(env)
  const logger = createLogger({
    format: 'pretty', level: 'warn', write: (line) => process.stderr.write(`${line}\n`), redact: [slackBotToken, ...chosen.flatMap((own) => gitSecrets(own.gitAccess)), slackSigningSecret ?? ''],
  })
  const shutdown = new AbortController()
  let store
  try {
    const db = openDatabase(databasePath)
    try {
      migrateUp(db)
    } catch (error) {
      db.close()
      throw error
    }
    store = createSqliteStore(db)
    // The server's worker: this run holds the server lock, so nothing else applies deliveries to this database.
    const worker = request.dryRun ? undefined : createWorker({
      settings, secrets: { slackBotToken, slackSigningSecret }, hosts, store, logger, signal: shutdown.signal,
    })
    // The server's batch runner, without its retries and leases: a failed batch is this pull request's error line.
    const batches = worker?.batches()
    try {
      const reports: HostReconcileReport[] = []
      const limit = worker?.limit ?? createCallLimit(PARALLEL_CALLS, shutdown.signal)
      for (const own of chosen) {
        const report = await runReconcile({
          settings, host: own, store, repository: request.repository, redeliver: false,
          apply: batches ? (event) => batches.run(pullRequestKey(event), [event]) : undefined, limit, ...extra,
        })
        reports.push({ host: own.host.words.name, report })
      }
      return reports
    } finally {
      shutdown.abort()
    }
  } finally {
    await store?.close()
    lock?.release()
  }
}
