import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { toNodeHandler } from 'h3/node'
import { createIntake, type Intake } from '../src/intake/intake.ts'
import { createLogger } from '../src/log/logger.ts'
import { createApp } from '../src/server.ts'
import type { Store } from '../src/store/store.ts'
import { migrateUp } from '../src/store/migrations.ts'
import { openDatabase } from '../src/store/open-database.ts'
import { createSqliteStore } from '../src/store/sqlite-store.ts'
import { github } from '../src/hosts/github/index.ts'

/**
 * prherald's acknowledgement path alone, in two depths, to split the bench's figures by cost:
 * - `store`: the same app, intake and durable SQLite store (WAL, FULL, group commit) as the service, with
 *   a hand-off that drops the event, so no mailbox or Slack work competes for the event loop;
 * - `none`: the same h3 app, route, signature check, JSON.parse and decoding, with an intake that
 *   accepts without writing anything: what h3 and decoding cost over the bare server.
 * Not configurations anyone runs.
 */
const [secret = '', dir = '', depth = 'store'] = process.argv.slice(2)
const logger = createLogger({ format: 'json', level: 'info' })
let store: Store | undefined
let accept: Intake = async () => ({ status: 'accepted' })
if (depth === 'store') {
  const db = openDatabase(join(dir, 'intake-only.db'))
  migrateUp(db)
  store = createSqliteStore(db)
  accept = createIntake({ host: github, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } },
    reviews: { ignoreBotReviews: false, dependencyBots: 'compact', dependencyBotLogins: [] }, store, logger, handOff: () => {} })
}
const server = createServer(toNodeHandler(createApp({ webhooks: [{ host: github, secrets: [secret], accept }], logger })))
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
})
process.on('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => void (store?.close() ?? Promise.resolve()).then(() => process.exit(0)))
})
