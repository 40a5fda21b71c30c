import '../src/cli/require-supported-node.ts'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { LifecycleEvent } from '../machines/lifecycle-event.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { migrateUp } from '../src/store/migrations.ts'
import { openDatabase } from '../src/store/open-database.ts'
import { createSqliteStore } from '../src/store/sqlite-store.ts'
import { watchDatabaseFile } from '../src/store/database-watch.ts'
import { createLogger } from '../src/log/logger.ts'

/**
 * `npm run bench:store`: what the durable intake costs per delivery, alone. The real store records
 * deliveries in group commits of 8, 16 and 32 (32 keep-alive connections give batches of about 15), with
 * `synchronous = FULL` as the service runs and, as the baseline in the same run, `OFF` (no fsync: not
 * durable, measured only to separate the flush from the insert). Each line runs with the check every commit
 * makes that the path still names the opened file (one stat), and, in the same run, without it (`file
 * check: off`), to measure what the check costs. Prints CPU (user, system) and wall time per delivery;
 * docs/performance.md uses the figures.
 */
const TOTAL = Number(process.env.BENCH_STORE_DELIVERIES ?? 24_000)
const event = {
  provider: 'github', kind: 'opened', owner: 'Codertocat', repo: 'Hello-World', number: 2, deliveryId: 'x',
  pr: { title: 'Update the README with new information.', url: 'https://github.com/Codertocat/Hello-World/pull/2', author: 'Codertocat', draft: false, state: 'open', createdAt: '2019-05-15T15:20:33Z' },
  actor: { login: 'Codertocat', isBot: false },
} as LifecycleEvent

async function measure(synchronous: 'FULL' | 'OFF', batch: number, fileCheck: boolean): Promise<string> {
  const dir = makeTempDir('prherald-bench-store-')
  const path = join(dir.path, 'store.db')
  const db = openDatabase(path)
  migrateUp(db)
  db.pragma(`synchronous = ${synchronous}`)
  const watch = watchDatabaseFile({ path, logger: createLogger({ level: 'error', format: 'json' }), intervalMs: 3_600_000 })
  const store = createSqliteStore(db, Date.now, fileCheck ? { fileState: watch.verify } : {})
  const record = () => store.recordDelivery({ provider: 'github', deliveryId: randomUUID(), prKey: 'github:Codertocat/Hello-World#2', event })
  const run = async (count: number) => {
    for (let i = 0; i < count / batch; i++) await Promise.all(Array.from({ length: batch }, record))
  }
  await run(2000) // warm-up
  const cpu = process.cpuUsage()
  const started = performance.now()
  await run(TOTAL)
  const used = process.cpuUsage(cpu)
  const wallUs = ((performance.now() - started) * 1000) / TOTAL
  await store.close()
  watch.stop()
  dir.remove()
  return `| ${synchronous} | ${batch} | ${fileCheck ? 'on' : 'off'} | ${(used.user / TOTAL).toFixed(1)} | ${(used.system / TOTAL).toFixed(1)} | ${wallUs.toFixed(1)} |`
}

console.log(`store: ${TOTAL} deliveries recorded through the real SQLite store (WAL) per line\n`)
console.log('| synchronous | deliveries per commit | file check | user CPU µs/delivery | system CPU µs/delivery | wall µs/delivery |\n|---|---:|---|---:|---:|---:|')
for (const batch of [8, 16, 32]) {
  for (const synchronous of ['FULL', 'OFF'] as const) {
    for (const fileCheck of [true, false]) console.log(await measure(synchronous, batch, fileCheck))
  }
}
