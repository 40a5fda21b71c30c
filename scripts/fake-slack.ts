import '../src/cli/require-supported-node.ts'
import { parseArgs } from 'node:util'
import { MANIFEST_SCOPES, startFakeSlack } from '../test/helpers/fake-slack.ts'

/**
 * `npm run fake-slack`: the stand-in Slack that `npm run demo` and `npm run dev` use, on its own, for running
 * the real commands (prherald-setup, -doctor, -smoke, -server) without a Slack workspace. It accepts one bot
 * token (any other gets invalid_auth, as Slack answers), its bot is in #pull-requests (the README's channel),
 * and it prints each call. Never for production: it keeps messages in memory and forgets them at exit.
 */
const CHANNEL = { id: 'C0PULLREQ01', name: 'pull-requests' }
const USAGE = `Usage: npm run fake-slack [-- --port <port>] [--token <xoxb-…>]

A stand-in for Slack's Web API on 127.0.0.1, for running the prherald-* commands without a Slack workspace.
Its bot is in #${CHANNEL.name} (${CHANNEL.id}); it accepts one bot token and answers invalid_auth to any other.

  --port <port>    port on 127.0.0.1 (default 8090; 0: a free one)
  --token <token>  the bot token it accepts (default xoxb-fake-slack)
  --help           this text
`

let options: { port: string; token: string; help: boolean }
try {
  options = parseArgs({ options: { port: { type: 'string', default: '8090' }, token: { type: 'string', default: 'xoxb-fake-slack' }, help: { type: 'boolean', default: false } } }).values as typeof options
} catch (error) {
  process.stderr.write(`fake-slack: ${(error as Error).message}; see npm run fake-slack -- --help\n`)
  process.exit(2)
}
if (options.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const port = Number(options.port)
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`fake-slack: --port ${options.port} is not a port (0-65535)\n`)
  process.exit(2)
}

const slack = await startFakeSlack({ anyChannel: true, scopes: [...MANIFEST_SCOPES], token: options.token, port }).catch((error: unknown) => {
  const code = (error as { code?: string }).code
  process.stderr.write(`fake-slack: cannot listen on 127.0.0.1:${port} (${code ?? String(error)}); choose another with -- --port <port>\n`)
  process.exit(1)
})
slack.channels.set(CHANNEL.id, { name: CHANNEL.name, is_member: true })
slack.onCall = (method, body) => {
  const fields = ['channel', 'ts', 'timestamp', 'name', 'text'].filter((k) => body[k] !== undefined).map((k) => `${k}=${JSON.stringify(body[k])}`)
  console.log(`[fake slack] ${method} ${fields.join(' ')}`)
}
console.log(`[fake slack] listening at ${slack.url}; its bot is in #${CHANNEL.name} (${CHANNEL.id})`)
console.log('[fake slack] in the terminal where you run the prherald-* commands:')
console.log(`export SLACK_API_URL=${slack.url}`)
console.log(`export SLACK_BOT_TOKEN=${options.token}`)
console.log('[fake slack] Ctrl-C stops it; it forgets every message then')
const stop = () => void slack.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
