import { cac } from 'cac'
import { migrateStore, replayParkedInStore, storeMigrationStatus } from '../store/migrate-store.ts'
import { handToServer } from '../control/call-control.ts'
import { controlSocketPath } from '../control/control-socket-path.ts'
import { replayedLine } from '../mailbox/replay-parked-control.ts'
import { commandSettings, loadEnvFile } from './load-env-file.ts'
import { createProgress } from '../log/progress.ts'
import { gapsLine, listGaps, readMigrations } from '../store/migrations.ts'
import { migrateCopy } from './migrate-copy.ts'
import { runCommands } from './run-commands.ts'
import { environmentHelp } from './host-variable-lines.ts'

const cli = cac('prherald-migrate')

cli.command('up', 'Apply pending database migrations (the server also does this at start-up)').action(async () => {
  // Same refusal as the server's, made after the migrations: the database serves one git provider.
  const current = commandSettings()
  // Each migration is one transaction: Ctrl-C leaves the database at the last one committed, and up goes on from there.
  // No database yet (a SQLite file up creates): every migration is pending.
  const pending = ((await storeMigrationStatus(current)) ?? readMigrations()).filter((s) => !('appliedAt' in s) || !s.appliedAt).length
  const progress = createProgress('migrating', { unit: 'migrations', total: pending })
  const applied = await migrateStore(current, process.env, () => progress.advance())
  if (pending > 0) progress.finish()
  if (applied.length === 0) console.log('database is up to date')
  for (const m of applied) console.log(`applied  ${m.version}_${m.name}`)
})

cli.command('status', 'List each migration as applied or pending').action(async () => {
  const current = commandSettings()
  const status = await storeMigrationStatus(current)
  if (status === undefined) {
    // Only a SQLite file can be missing (a PostgreSQL database is its administrator's to create); its URL holds no secret.
    console.log(`no database yet at ${current.databaseUrl}: prherald-server creates it (and its directory) at start-up, as does prherald-migrate up`)
    return
  }
  for (const s of status) {
    console.log(`${s.appliedAt ? 'applied' : 'pending'}  ${s.version}_${s.name}${s.appliedAt ? `  ${s.appliedAt.toISOString()}` : ''}`)
  }
  const gaps = gapsLine(listGaps(status))
  if (gaps) console.log(gaps)
})

cli.command('copy', 'Copy every table of a SQLite database into an empty PostgreSQL one (docs/scaling.md)')
  .option('--from <url>', 'the SQLite database, e.g. file:./data/prherald.db (stop its server first)')
  .option('--to <url>', 'the empty PostgreSQL database, e.g. postgres://prherald@db:5432/prherald (password in PGPASSWORD)')
  .action(async (options: { from?: unknown; to?: unknown }) => {
    loadEnvFile()
    await migrateCopy(options, (line) => console.log(line))
  })

cli.command('replay-parked', 'Retry the deliveries parked after too many failed attempts, once the cause is fixed').action(async () => {
  const current = commandSettings()
  // A SQLite server running on the database takes them into its mailboxes at once.
  if (await handToServer(controlSocketPath(current), 'replay-parked', {}, (line) => console.log(line))) return
  const count = await replayParkedInStore(current)
  console.log(replayedLine(count, current.database.kind === 'postgres'
    ? 'the replicas take them within a lease (database.lease_seconds)'
    : 'prherald-server applies them at its next start'))
})

environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml)',
  '  PRHERALD_DATABASE_URL  database (default file:./data/prherald.db, or database.url in the config):',
  '                         file:… for SQLite, postgres://… for PostgreSQL (user and password may come from PGUSER / PGPASSWORD)',
])

await runCommands(cli)
