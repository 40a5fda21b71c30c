import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { loadSettings, type Env } from '../../src/config/load-config.ts'
import { createLogger } from '../../src/log/logger.ts'
import { openStore } from '../../src/store/open-store.ts'
import { GITHUB_OPTIONAL_EVENTS, GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { BITBUCKET_REQUIRED_EVENTS } from '../../src/hosts/bitbucket/events.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { runCliAsync, spawnCli, type RunningCli } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { type SpawnedServer, killServer, spawnServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig, type TestConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

const TOKEN = 'ghp-startup-token-77aa'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub
let servers: Array<SpawnedServer | RunningCli> = []

const hook = (url: string) => ({ id: 1, name: 'web' as const, active: true, events: [...GITHUB_REQUIRED_EVENTS], config: { url, content_type: 'json', insecure_ssl: '0' } })
const config = (apiChannel: string): TestConfig => ({
  git_provider: 'github',
  server: { log_format: 'json' },
  mappings: { acme: { '*': { channel: 'C0000000001' }, api: { channel: apiChannel } } },
})

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  github = await startFakeGithub()
  github.token = TOKEN
  github.repos.set('acme', ['api', 'web'])
  for (const repo of ['api', 'web']) github.hooks.set(`acme/${repo}`, [hook('https://prherald.example.com/webhook/github')])
  writeConfig(dir.path, config('C0000000002'))
})
afterEach(async () => {
  for (const s of servers) await killServer(s)
  servers = []
  await slack.close()
  await github.close()
  dir.remove()
})

const env = (extra: Env = {}) => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN: TOKEN, ...extra })
const lockFile = () => join(dir.path, 'config.lock')
const outbound = () => slack.calls.length + github.requests.length

async function boot(extra: Env = {}): Promise<SpawnedServer> {
  const server = await spawnServer(env(extra), dir.path)
  servers.push(server)
  return server
}

async function stop(server: SpawnedServer): Promise<void> {
  server.child.kill('SIGTERM')
  expect(await server.exited).toEqual({ code: 0, signal: null })
}

function clearLogs() {
  slack.calls.length = 0
  github.requests.length = 0
}

describe('start-up validation and config.lock', () => {
  it('the first boot validates every entry and writes config.lock (0600); a boot with a current lock calls auth.test only', async () => {
    await stop(await boot())
    expect(slack.calls.map((c) => c.method).sort()).toEqual(['auth.test', 'conversations.info', 'conversations.info'])
    expect(github.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/orgs/acme/repos', '/repos/acme/web/hooks', '/repos/acme/api/hooks']))
    expect(statSync(lockFile()).mode & 0o777).toBe(0o600)
    const lock = (JSON.parse(readFileSync(lockFile(), 'utf8')) as { version: 2; hosts: { github: { entries: Record<string, { hash: string; validated_at: string }> } } }).hosts.github
    expect(Object.keys(lock.entries).sort()).toEqual(['acme/*', 'acme/api'])
    expect(lock.entries['acme/api']!.hash).toMatch(/^[0-9a-f]{64}$/)

    clearLogs()
    const second = await boot()
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test'])
    expect(github.requests).toHaveLength(0)
    expect(second.entries()).toContainEqual(expect.objectContaining({ msg: 'configuration validated', validated: 0, unchanged: 2 }))
    await stop(second)
    expect(outbound()).toBe(1)
  })

  it('a channel change re-validates that entry only; --force re-validates every entry', async () => {
    await stop(await boot())
    writeConfig(dir.path, config('C0000000003'))
    clearLogs()
    await stop(await boot())
    expect(slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel)).toEqual(['C0000000003'])
    expect(github.requests.map((r) => r.path)).toEqual(['/repos/acme/api/hooks'])

    clearLogs()
    await stop(await boot())
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test'])
    expect(github.requests).toHaveLength(0)

    const forced = spawnCli('server', ['--force'], env(), dir.path)
    servers.push(forced)
    await waitFor('the forced boot to listen', () => forced.output().includes('"msg":"listening"'))
    expect(slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel).sort()).toEqual(['C0000000001', 'C0000000003'])
    expect(github.requests.map((r) => r.path)).toContain('/repos/acme/web/hooks')
  })

  it('setting the git-host token re-validates entries whose webhook check was skipped', async () => {
    await stop(await boot({ GITHUB_TOKEN: '' }))
    expect(github.requests).toHaveLength(0)
    await stop(await boot())
    expect(github.requests.map((r) => r.path)).toContain('/repos/acme/api/hooks')
  })

  it('refuses to start on a FAIL: exits 1 before the database or the listener, naming the repository and the fix', async () => {
    github.hooks.set('acme/api', [])
    const error = await boot().then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('exited with 1 before listening')
    expect(error?.message).toContain('acme/api webhook: no webhook whose URL ends in /webhook/github')
    expect(error?.message).toContain('fix: run prherald-config create-webhook acme/api')
    expect(error?.message).not.toContain('"msg":"listening"')
    expect(error?.message).not.toContain(TOKEN)
    expect(existsSync(join(dir.path, 'prherald.db'))).toBe(false)
    expect(existsSync(lockFile())).toBe(false)
  })

  it('refuses an http:// PRHERALD_PUBLIC_URL off loopback, as the doctor and setup do; http:// on loopback starts', async () => {
    const error = await boot({ PRHERALD_PUBLIC_URL: 'http://prherald.example.com' }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('exited with 1 before listening')
    expect(error?.message).toContain('PRHERALD_PUBLIC_URL public url: http://prherald.example.com is http://: deliveries would cross the network unencrypted')
    expect(error?.message).toContain('fix: set PRHERALD_PUBLIC_URL to the https:// URL the git host delivers to')
    const server = await boot({ PRHERALD_PUBLIC_URL: 'http://127.0.0.1:8080' })
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  })

  it('refuses to start when a mapped channel is archived, and SKIP (no token) does not stop it', async () => {
    slack.channels.set('C0000000002', { name: 'old-api', is_archived: true })
    const error = await boot({ GITHUB_TOKEN: '' }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('acme/api slack-channel: C0000000002 (#old-api) is archived')
    expect(error?.message).toContain('fix: unarchive the channel')

    slack.channels.delete('C0000000002')
    const server = await boot({ GITHUB_TOKEN: '' })
    const health = await fetch(`${server.url}/healthz`)
    expect(health.status).toBe(200)
  })
})

describe('the Slack token at every start', () => {
  it('a token Slack refuses stops a start whose config.lock is current, in one line naming SLACK_BOT_TOKEN', async () => {
    await stop(await boot())
    for (const error of ['invalid_auth', 'token_revoked', 'account_inactive', 'not_authed']) {
      slack.faults.push({ method: 'auth.test', fault: { error } })
      const result = await runCliAsync('server', [], env(), dir.path)
      expect(result.status).toBe(1)
      const lines = result.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`prherald: SLACK_BOT_TOKEN: auth.test answered ${error}; not starting`)
      expect(lines[1]).toMatch(/^ {2}fix: .*SLACK_BOT_TOKEN/)
      expect(lines).toHaveLength(2)
      expect(result.stdout).not.toContain('"msg":"listening"')
    }
  })

  it('logs a warning per personal scope the token lacks at every start, config.lock current or not, and starts', async () => {
    writeConfig(dir.path, { ...config('C0000000002'), notify: { direct_messages: 'on' } })
    slack.scopes.push('im:write', 'users:read')
    await stop(await boot())
    const current = await boot()
    expect(current.entries().filter((e) => e.msg === 'check warning' && e.check === 'slack-scope')).toEqual([expect.objectContaining({
      level: 'warn', target: 'im:history', reason: expect.stringContaining('which disables looking up a direct message of unknown outcome'), fix: expect.stringContaining('reinstall the app'),
    })])
    expect((await fetch(`${current.url}/readyz`)).status).toBe(200)
    await stop(current)
  })

  it('warns about a webhook secret shorter than 16 characters at every start, as doctor does, and starts', async () => {
    await stop(await boot())
    const short = await boot({ GITHUB_WEBHOOK_SECRET: 'short-s3cret' })
    expect(short.entries().filter((e) => e.msg === 'check warning' && e.check === 'secret')).toEqual([expect.objectContaining({
      level: 'warn', target: 'GITHUB_WEBHOOK_SECRET', reason: 'set, but shorter than 16 characters', fix: expect.stringContaining('openssl rand -hex 32'),
    })])
    expect(JSON.stringify(short.entries())).not.toContain('short-s3cret')
    expect((await fetch(`${short.url}/readyz`)).status).toBe(200)
    await stop(short)
  })

  it('Slack not answering (5xx, unreachable) only warns: the server starts, ready', async () => {
    await stop(await boot())
    slack.faults.push({ method: 'auth.test', fault: { status: 503 } })
    const during5xx = await boot()
    expect(during5xx.entries()).toContainEqual(expect.objectContaining({
      level: 'warn', msg: 'Slack did not answer auth.test; starting anyway: deliveries are stored and posted once it answers', reason: 'auth.test answered http_503',
    }))
    expect((await fetch(`${during5xx.url}/readyz`)).status).toBe(200)
    await stop(during5xx)

    const gone = await startFakeSlack()
    await gone.close()
    const unreachable = await boot({ SLACK_API_URL: gone.url })
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({ level: 'warn', reason: expect.stringContaining(`Slack unreachable at ${gone.url}`) }))
    expect((await fetch(`${unreachable.url}/readyz`)).status).toBe(200)
    await stop(unreachable)
  })

  it('a git host that cannot be reached only warns, as Slack does: the server starts, ready, and the next start checks those entries', async () => {
    const gone = createServer()
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve))
    const goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`
    await new Promise<void>((resolve) => gone.close(() => resolve()))
    const unreachable = await boot({ GITHUB_API_URL: goneUrl })
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({
      level: 'warn', msg: 'could not check: the other side did not answer; starting anyway, the next start checks it again',
      check: 'webhook', target: 'acme/api', reason: expect.stringContaining(`GitHub unreachable at ${goneUrl}`),
    }))
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({ msg: 'config.lock not updated for the entries a side could not check; the next start checks them', entries: 2 }))
    expect((await fetch(`${unreachable.url}/readyz`)).status).toBe(200)
    await stop(unreachable)
    const lock = existsSync(lockFile()) ? (JSON.parse(readFileSync(lockFile(), 'utf8')) as { hosts: { github: { entries: object } } }).hosts.github : { entries: {} }
    expect(Object.keys(lock.entries)).toEqual([])

    // Reachable again: the next start checks them, and locks them.
    clearLogs()
    await stop(await boot())
    expect(github.requests.map((r) => r.path)).toContain('/repos/acme/api/hooks')
    expect(Object.keys((JSON.parse(readFileSync(lockFile(), 'utf8')) as { hosts: { github: { entries: object } } }).hosts.github.entries).sort()).toEqual(['acme/*', 'acme/api'])
  })

  it('a git-host token the host refuses (401) still stops the start: it can never work', async () => {
    const result = await runCliAsync('server', [], env({ GITHUB_TOKEN: 'ghp-refused-token' }), dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('configuration check failed, not starting')
    expect(result.stderr).toContain('GitHub answered 401')
  })

  it('a first start while Slack is down starts, and leaves the entries unlocked for the next start to check', async () => {
    slack.faults.push({ method: 'auth.test', fault: { status: 502 } })
    const first = await boot()
    expect(first.entries()).toContainEqual(expect.objectContaining({ msg: 'config.lock not updated: Slack could not check the new or changed entries; the next start checks them', entries: 2 }))
    await stop(first)
    expect(existsSync(lockFile())).toBe(false)
    clearLogs()
    await stop(await boot())
    expect(slack.calls.map((c) => c.method).sort()).toEqual(['auth.test', 'conversations.info', 'conversations.info'])
    expect(existsSync(lockFile())).toBe(true)
  })
})

describe('prherald-server --config <file>', () => {
  it('reads that file over PRHERALD_CONFIG_FILE and keeps config.lock beside it', async () => {
    mkdirSync(join(dir.path, 'etc'))
    const file = writeConfig(join(dir.path, 'etc'), config('C0000000002'))
    const server = spawnCli('server', ['--config', file], env({ PRHERALD_CONFIG_FILE: join(dir.path, 'missing.yaml') }), dir.path)
    servers.push(server)
    await waitFor('the server to listen', () => server.output().includes('"msg":"listening"'))
    expect(existsSync(join(dirname(file), 'config.lock'))).toBe(true)
    expect(existsSync(lockFile())).toBe(false)
  })
})

describe('the listener is bound first', () => {
  it('a port in use stops the start in one line naming the address and the fix, before the database is touched', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const taken = (holder.address() as AddressInfo).port
    try {
      const result = await runCliAsync('server', [], env({ PRHERALD_LISTEN: `127.0.0.1:${taken}` }), dir.path)
      expect(result.status).toBe(1)
      expect(result.stderr).toBe(`prherald: PRHERALD_LISTEN / server.listen: cannot listen on 127.0.0.1:${taken} (EADDRINUSE): the address is already in use (another prherald, or another program, listens there)\n`
        + '  fix: choose a free port of this host for PRHERALD_LISTEN / server.listen, e.g. :8081, or stop the program that holds it\n')
      expect(result.stdout).not.toContain('"msg":"listening"')
      expect(existsSync(join(dir.path, 'prherald.db'))).toBe(false)
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  it('answers /readyz and deliveries 503 until the start-up steps are done, /healthz 200 starting; nothing refused is stored', async () => {
    writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
    const startEnv = env({ GITHUB_TOKEN: '' })
    // A post the last run left with an unknown outcome: the start looks for it in Slack before it is ready.
    const opened = await openStore({ settings: loadSettings(startEnv, dir.path), logger: createLogger({ format: 'json', level: 'error', write: () => {} }), lockConnections: 1 })
    await opened.store.recordPostIntent({
      provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 99, channel: 'C0000000001', marker: 'd-0', mentions: [],
      state: 'unannounced', lifecycle: { state: 'unannounced' } as never, lastDeliveryId: null, reactions: [], createdAt: Date.now(),
    })
    await opened.close()
    let release!: () => void
    slack.faults.push({ method: 'conversations.history', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })

    const server = spawnCli('server', [], startEnv, dir.path)
    servers.push(server)
    await waitFor('the lookup of the interrupted post', () => slack.calls.some((c) => c.method === 'conversations.history'))
    const bound = server.output().split('\n').map((l) => l.startsWith('{') ? JSON.parse(l) as { msg?: string; port?: number } : {})
      .find((e) => e.msg === 'accepting connections; deliveries get 503 until the start-up steps are done')
    const url = `http://127.0.0.1:${bound?.port}`
    const opening = { event: 'pull_request', payload: githubExample('pull_request', 'opened'), deliveryId: 'early-1' }

    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'starting' })
    const notReady = await fetch(`${url}/readyz`)
    expect(notReady.status).toBe(503)
    expect(await notReady.json()).toMatchObject({ status: 'starting' })
    const early = await deliver(url, 'github', opening)
    expect(early.status).toBe(503)
    expect(early.headers.get('retry-after')).toBe('5')
    expect(server.output()).not.toContain('"msg":"listening"')

    release()
    // The post is not in Slack: the start looks once more a client timeout (10 s) later, still answering 503.
    await waitFor('the second look', () => server.output().includes('interrupted posts not in the channel yet'))
    expect((await deliver(url, 'github', opening)).status).toBe(503)
    await waitFor('the server to be ready', () => server.output().includes('"msg":"listening"'), 20_000)
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: 'ok' })
    expect(storedDeliveries()).toEqual([])
    expect((await deliver(url, 'github', opening)).status).toBe(200)
    expect(storedDeliveries()).toEqual(['early-1'])
  })
})

function storedDeliveries(): string[] {
  const db = new Database(join(dir.path, 'prherald.db'), { readonly: true })
  try {
    return (db.prepare('SELECT delivery_id FROM deliveries').all() as Array<{ delivery_id: string }>).map((r) => r.delivery_id)
  } finally {
    db.close()
  }
}
