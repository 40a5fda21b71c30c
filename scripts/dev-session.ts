import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loadEnvFile } from '../src/cli/load-env-file.ts'
import { PrheraldError } from '../src/errors.ts'
import { packageRoot } from '../src/package-root.ts'
import { MANIFEST_SCOPES, startFakeSlack } from '../test/helpers/fake-slack.ts'
import { createSupervisor } from './dev-supervisor.ts'
import { transpileToDist } from './dev-transpile.ts'
import { watchSources } from './dev-watch.ts'
import { demoSecret } from './demo-secret.ts'
import { openDevTunnel } from './dev-tunnel.ts'

export interface DevOptions {
  tunnel?: boolean
  port?: number | string
  slack?: boolean
  watch?: string | string[]
}

const log = (line: string) => console.log(`[dev] ${line}`)

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

/**
 * The running `npm run dev` (scripts/dev.ts reads the command line and builds first): prherald with the example
 * config, a throw-away database and a stand-in Slack that prints each call, served by listhen
 * (scripts/dev-server.ts), restarted as a whole process on every change to the sources or the config. The
 * stand-in Slack, the database and the tunnel live here, in the supervisor, so that they survive restarts:
 * the public URL stays the same.
 */
export async function runDevSession(options: DevOptions): Promise<void> {
  const root = packageRoot()
  // Like every prherald command: .env in the working directory (PRHERALD_CONFIG_FILE, the secrets), the environment first.
  loadEnvFile()
  const slackToken = process.env.SLACK_BOT_TOKEN?.trim()
  if (options.slack && !slackToken) {
    throw new PrheraldError('env_missing', '--slack needs SLACK_BOT_TOKEN', { fix: 'set it in the environment or in .env (prherald-setup writes it)' })
  }
  const exampleConfig = join(root, 'config.yaml')
  const configFile = resolve(process.env.PRHERALD_CONFIG_FILE ?? exampleConfig)
  const watched = options.watch === undefined
    ? [...['src', 'machines', 'scripts'].map((d) => join(root, d)), configFile]
    : ([] as unknown[]).concat(options.watch).map((p) => resolve(String(p)))
  const missing = options.watch === undefined ? undefined : watched.find((p) => !existsSync(p))
  if (missing) throw new PrheraldError('usage', `--watch ${missing}: no such file or directory`)

  const port = await freePort(Number(options.port ?? process.env.PORT ?? 8080))
  // The tunnel first: when it cannot open, the session stops before anything (a directory, a server) exists.
  const tunnel = options.tunnel ? await openDevTunnel(`http://127.0.0.1:${port}`) : undefined
  const publicUrl = tunnel?.publicUrl

  const dataDir = mkdtempSync(join(tmpdir(), 'prherald-dev-'))
  const slack = options.slack ? undefined : await startFakeSlack({ anyChannel: true, scopes: [...MANIFEST_SCOPES] })
  if (slack) {
    slack.onCall = (method, body) => {
      const fields = ['channel', 'ts', 'timestamp', 'name', 'text'].filter((k) => body[k] !== undefined).map((k) => `${k}=${JSON.stringify(body[k])}`)
      console.log(`[stand-in slack] ${method} ${fields.join(' ')}`)
    }
  }

  // The secret demo:deliver signs with too, so that the hint below works with a .env in the clone.
  const { secret, from } = demoSecret()
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
  log(`webhook secret: ${from}`)
  if (publicUrl) log(`public URL ${publicUrl} (webhook: ${publicUrl}/webhook/<github|bitbucket>)`)
  else if (options.tunnel) log('the tunnel did not start; serving locally only')
  log(`try it: npm run demo:deliver http://127.0.0.1:${port}`)
  supervisor.start()

  const sources = watchSources(watched, (files) => {
    for (const file of files) {
      try {
        transpileToDist(root, file)
      } catch (error) {
        log(`${file} not compiled: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    void supervisor.restart(files.map((f) => f.replace(`${root}/`, '')).join(', '))
  })

  let exiting = false
  const exit = async () => {
    if (exiting) return
    exiting = true
    sources.close()
    await supervisor.stop()
    await tunnel?.close().catch(() => {})
    await slack?.close()
    rmSync(dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  process.on('SIGINT', () => void exit())
  process.on('SIGTERM', () => void exit())
}
