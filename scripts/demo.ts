import '../src/cli/require-supported-node.ts'
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MANIFEST_SCOPES, startFakeSlack } from '../test/helpers/fake-slack.ts'
import { packageRoot } from '../src/package-root.ts'
import { relaySignals } from '../src/cli/relay-signals.ts'
import { demoSecret } from './demo-secret.ts'

/**
 * `npm run demo`: the real server with the example config.yaml, a throw-away database, and a fake Slack on
 * 127.0.0.1 that prints each call. For trying prherald without a Slack workspace; never for production.
 * The database lives in a new temporary directory, removed when the demo exits: the fake Slack forgets
 * its messages at exit, so a database kept from an earlier run would point at messages that no longer exist.
 * So does a copy of the example config.yaml, taken at start: the server writes config.lock beside its config
 * file, and a demo leaves nothing in the clone.
 */
// The secret demo:deliver signs with too (the environment's or .env's, else the demo's own).
const { secret, from } = demoSecret()
const root = packageRoot()
const slack = await startFakeSlack({ anyChannel: true, scopes: [...MANIFEST_SCOPES] })
slack.onCall = (method, body) => {
  const fields = ['channel', 'ts', 'timestamp', 'name', 'text'].filter((k) => body[k] !== undefined).map((k) => `${k}=${JSON.stringify(body[k])}`)
  console.log(`[fake slack] ${method} ${fields.join(' ')}`)
}

const scratch = mkdtempSync(join(tmpdir(), 'prherald-demo-'))
const database = join(scratch, 'demo.db')
const config = join(scratch, 'config.yaml')
if (process.env.PRHERALD_CONFIG_FILE === undefined) copyFileSync(join(root, 'config.yaml'), config)
const env = {
  ...process.env,
  PRHERALD_CONFIG_FILE: process.env.PRHERALD_CONFIG_FILE ?? config,
  PRHERALD_DATABASE_URL: process.env.PRHERALD_DATABASE_URL ?? `file:${database}`,
  SLACK_API_URL: slack.url,
  SLACK_BOT_TOKEN: 'xoxb-demo-token',
  GITHUB_WEBHOOK_SECRET: secret,
  BITBUCKET_WEBHOOK_SECRET: secret,
  // The demo's repositories (acme/*) are made up: a real token would send start-up validation to the real
  // git host, where their webhook check can only FAIL.
  GITHUB_TOKEN: '',
  BITBUCKET_TOKEN: '',
}
console.log(`[demo] fake Slack at ${slack.url}; webhook secret: ${from}`)
console.log(`[demo] throw-away database ${env.PRHERALD_DATABASE_URL} (removed when the demo exits)`)
console.log('[demo] in another terminal: npm run demo:deliver   (sends signed pull-request deliveries to :8080)')
const server = spawn(process.execPath, [join(root, 'dist/src/cli/server.js')], { env, stdio: 'inherit' })
// Ctrl-C reaches the server from the terminal itself; forwarding it too ended the drain (stopped drained=false).
relaySignals(server)
server.on('exit', async (code) => {
  rmSync(scratch, { recursive: true, force: true })
  await slack.close()
  process.exit(code ?? 0)
})
