import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { toNodeHandler } from 'h3/node'
import { createIntake } from '../src/intake/intake.ts'
import { createLogger } from '../src/log/logger.ts'
import { createApp } from '../src/server.ts'
import { migrateUp } from '../src/store/migrations.ts'
import { openDatabase } from '../src/store/open-database.ts'
import { createSqliteStore } from '../src/store/sqlite-store.ts'

/**
 * prherald's acknowledgement path alone: the same app, intake and durable SQLite store (WAL, FULL, group
 * commit) as the service, with a hand-off that drops the event, so no mailbox or Slack work competes for
 * the event loop. Not a configuration anyone runs; it separates the cost of acknowledging from the cost
 * of processing in the bench's figures.
 */
const [secret = '', dir = ''] = process.argv.slice(2)
const db = openDatabase(join(dir, 'intake-only.db'))
migrateUp(db)
const store = createSqliteStore(db)
const logger = createLogger({ format: 'json', level: 'info' })
const accept = createIntake({ provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } }, store, logger, handOff: () => {} })
const server = createServer(toNodeHandler(createApp({ provider: 'github', webhookSecrets: [secret], accept, logger })))
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
})
process.on('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => void store.close().then(() => process.exit(0)))
})
