#!/usr/bin/env node
import { cac } from 'cac'
import { loadSettings } from '../config/load-config.ts'
import { claimProvider } from '../store/database-provider.ts'
import { migrateUp, migrationStatus } from '../store/migrations.ts'
import { openDatabase } from '../store/open-database.ts'
import { loadEnvFile } from './load-env-file.ts'
import { migrateCopy } from './migrate-copy.ts'
import { runCommands } from './run-commands.ts'

const cli = cac('prherald-migrate')

function withDatabase<T>(run: (db: ReturnType<typeof openDatabase>, settings: ReturnType<typeof loadSettings>) => T): T {
  loadEnvFile()
  const settings = loadSettings(process.env)
  const db = openDatabase(settings.databasePath)
  try {
    return run(db, settings)
  } finally {
    db.close()
  }
}

cli.command('up', 'Apply pending database migrations (the server also does this at start-up)').action(() => {
  withDatabase((db, settings) => {
    const applied = migrateUp(db)
    if (applied.length === 0) console.log('database is up to date')
    for (const m of applied) console.log(`applied  ${m.version}_${m.name}`)
    // Same refusal as the server's: the database serves one git provider.
    claimProvider(db, settings.databasePath, settings.gitProvider)
  })
})

cli.command('status', 'List each migration as applied or pending').action(() => {
  withDatabase((db) => {
    for (const s of migrationStatus(db)) {
      console.log(`${s.appliedAt ? 'applied' : 'pending'}  ${s.version}_${s.name}${s.appliedAt ? `  ${s.appliedAt.toISOString()}` : ''}`)
    }
  })
})

cli.command('copy', 'Copy every table of a SQLite database into an empty PostgreSQL one (docs/scaling.md)')
  .option('--from <url>', 'the SQLite database, e.g. file:./data/prherald.db (stop its server first)')
  .option('--to <url>', 'the empty PostgreSQL database, e.g. postgres://prherald@db:5432/prherald (password in PGPASSWORD)')
  .action(async (options: { from?: unknown; to?: unknown }) => {
    loadEnvFile()
    await migrateCopy(options, (line) => console.log(line))
  })

cli.help((sections) => {
  sections.push({
    title: 'Environment',
    body: '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml)\n  PRHERALD_DATABASE_URL  database (default file:./data/prherald.db, or database.url in the config)',
  })
})

await runCommands(cli)
