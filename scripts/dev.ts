import '../src/cli/require-supported-node.ts'
import { watch, type FSWatcher } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { cac } from 'cac'
import { loadEnvFile } from '../src/cli/load-env-file.ts'
import { packageRoot } from '../src/package-root.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { createSupervisor } from './dev-supervisor.ts'
import { transpileToDist } from './dev-transpile.ts'

/**
 * `npm run dev [-- --tunnel] [-- --port N]`: prherald with the example config, a throw-away database and a
 * stand-in Slack that prints each call, served by listhen (scripts/dev-server.ts), restarted as a whole
 * process on every change to the sources or the config. The stand-in Slack, the database and the tunnel
 * live here, in the supervisor, so that they survive restarts: the public URL stays the same.
 */
const cli = cac('npm run dev --')
cli.option('--tunnel', 'Also open a public URL (a Cloudflare quick tunnel through untun, as listhen --tunnel does)')
cli.option('--port <port>', 'Local port (default: PORT, else 8080, else any free port)')
cli.option('--slack', 'Post to the real Slack with SLACK_BOT_TOKEN (environment or .env) instead of the stand-in')
cli.option('--watch <path>', 'What to watch (repeatable; default: src, machines, scripts and the config file)')
cli.help()
const { options } = cli.parse()
if (options.help) process.exit(0)

const root = packageRoot()
// Like every prherald command: .env in the working directory (PRHERALD_CONFIG_FILE, the secrets), the environment first.
loadEnvFile()
const log = (line: string) => console.log(`[dev] ${line}`)
const DEV_SECRET = 'demo-webhook-secret'

/** The preferred port when it is free, else one the system picks: a busy 8080 must not stop the dev server. */
async function freePort(preferred: number): Promise<number> {
  const attempt = (port: number) => new Promise<number>((done, fail) => {
    const probe = createServer().once('error', fail).listen(port, '127.0.0.1', () => {
      const { port: got } = probe.address() as { port: number }
      probe.close(() => done(got))
    })
  })
  return attempt(preferred).catch(() => attempt(0))
}

const dataDir = mkdtempSync(join(tmpdir(), 'prherald-dev-'))
const slackToken = process.env.SLACK_BOT_TOKEN?.trim()
if (options.slack && !slackToken) {
  console.error('[dev] --slack needs SLACK_BOT_TOKEN (in the environment or .env)')
  process.exit(2)
}
const slack = options.slack ? undefined : await startFakeSlack({ anyChannel: true })
if (slack) {
  slack.onCall = (method, body) => {
    const fields = ['channel', 'ts', 'timestamp', 'name', 'text'].filter((k) => body[k] !== undefined).map((k) => `${k}=${JSON.stringify(body[k])}`)
    console.log(`[stand-in slack] ${method} ${fields.join(' ')}`)
  }
}
const port = await freePort(Number(options.port ?? process.env.PORT ?? 8080))
const exampleConfig = join(root, 'config.yaml')
const configFile = resolve(process.env.PRHERALD_CONFIG_FILE ?? exampleConfig)

let publicUrl: string | undefined
let closeTunnel: (() => Promise<void>) | undefined
if (options.tunnel) {
  // Downloads cloudflared on first use and asks to accept Cloudflare's notice.
  const { startTunnel } = await import('untun')
  const tunnel = await startTunnel({ url: `http://127.0.0.1:${port}` })
  if (tunnel) {
    publicUrl = (await tunnel.getURL()).replace(/\/+$/, '')
    closeTunnel = () => tunnel.close()
  }
}

const secret = process.env.GITHUB_WEBHOOK_SECRET || process.env.BITBUCKET_WEBHOOK_SECRET || DEV_SECRET
const supervisor = createSupervisor({
  command: process.execPath,
  args: [join(root, 'dist/scripts/dev-server.js')],
  log,
  env: {
    ...process.env,
    PRHERALD_CONFIG_FILE: configFile,
    PRHERALD_DATABASE_URL: `file:${join(dataDir, 'dev.db')}`,
    PRHERALD_DEV_PORT: String(port),
    ...(slack ? { SLACK_API_URL: slack.url, SLACK_BOT_TOKEN: 'xoxb-stand-in-token' } : {}),
    GITHUB_WEBHOOK_SECRET: secret,
    BITBUCKET_WEBHOOK_SECRET: secret,
    // The example's repositories are made up: a real token would send path routing to the real git host.
    ...(configFile === exampleConfig ? { GITHUB_TOKEN: '', BITBUCKET_TOKEN: '' } : {}),
    ...(publicUrl ? { PRHERALD_PUBLIC_URL: publicUrl } : {}),
  },
})

log(`config ${configFile}; throw-away database in ${dataDir}; ${slack ? `stand-in Slack at ${slack.url}` : 'the real Slack (SLACK_BOT_TOKEN)'}`)
log(`webhook secret ${secret === DEV_SECRET ? `"${DEV_SECRET}" (set GITHUB_WEBHOOK_SECRET to use your own)` : 'from the environment'}`)
if (publicUrl) log(`public URL ${publicUrl} (webhook: ${publicUrl}/webhook/<github|bitbucket>)`)
else if (options.tunnel) log('the tunnel did not start; serving locally only')
log(`try it: npm run demo:deliver http://127.0.0.1:${port}`)
supervisor.start()

const watched = options.watch === undefined
  ? [...['src', 'machines', 'scripts'].map((d) => join(root, d)), configFile]
  : ([] as unknown[]).concat(options.watch).map((p) => resolve(String(p)))
let timer: NodeJS.Timeout | undefined
const changed = new Set<string>()
const watchers: FSWatcher[] = watched.map((path) => watch(path, { recursive: true }, (_event, name) => {
  changed.add(name ? (path.endsWith('.yaml') ? path : join(path, name)) : path)
  clearTimeout(timer)
  // Editors write a file in several steps; one restart per burst.
  timer = setTimeout(() => {
    const files = [...changed]
    changed.clear()
    for (const file of files) {
      try {
        transpileToDist(root, file)
      } catch (error) {
        log(`${file} not compiled: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    void supervisor.restart(files.map((f) => f.replace(`${root}/`, '')).join(', '))
  }, 150)
}))

let exiting = false
const exit = async () => {
  if (exiting) return
  exiting = true
  for (const w of watchers) w.close()
  clearTimeout(timer)
  await supervisor.stop()
  await closeTunnel?.().catch(() => {})
  await slack?.close()
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGINT', () => void exit())
process.on('SIGTERM', () => void exit())
