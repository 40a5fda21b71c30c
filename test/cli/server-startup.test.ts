import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { createLogger } from '../../src/log/logger.ts'
import { openStore } from '../../src/store/open-store.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { runCliAsync, spawnCli } from '../helpers/run-cli-async.ts'
import { startupConfig, STARTUP_TOKEN, useServerStartup } from '../helpers/server-startup-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * prherald-server's start as a process: what it validates and locks in config.lock, what stops it (a FAIL, a
 * port in use), the file --config names, and /readyz until the start-up steps are done. What it checks at
 * every start (the Slack token, scopes, the other side unreachable) is test/cli/server-startup-checks.test.ts.
 */
const t = useServerStartup()

describe('start-up validation and config.lock', () => {
  it('the first boot validates every entry and writes config.lock (0600); a boot with a current lock calls auth.test only', async () => {
    await t.stop(await t.boot())
    expect(t.slack.calls.map((c) => c.method).sort()).toEqual(['auth.test', 'conversations.info', 'conversations.info'])
    expect(t.github.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/orgs/acme/repos', '/repos/acme/web/hooks', '/repos/acme/api/hooks']))
    expect(statSync(t.lockFile()).mode & 0o777).toBe(0o600)
    const lock = (JSON.parse(readFileSync(t.lockFile(), 'utf8')) as { version: 2; hosts: { github: { entries: Record<string, { hash: string; validated_at: string }> } } }).hosts.github
    expect(Object.keys(lock.entries).sort()).toEqual(['acme/*', 'acme/api'])
    expect(lock.entries['acme/api']!.hash).toMatch(/^[0-9a-f]{64}$/)

    t.clearLogs()
    const second = await t.boot()
    expect(t.slack.calls.map((c) => c.method)).toEqual(['auth.test'])
    expect(t.github.requests).toHaveLength(0)
    expect(second.entries()).toContainEqual(expect.objectContaining({ msg: 'configuration validated', validated: 0, unchanged: 2 }))
    await t.stop(second)
    expect(t.outbound()).toBe(1)
  })

  it('a channel change re-validates that entry only; --force re-validates every entry', async () => {
    await t.stop(await t.boot())
    writeConfig(t.dir.path, startupConfig('C0000000003'))
    t.clearLogs()
    await t.stop(await t.boot())
    expect(t.slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel)).toEqual(['C0000000003'])
    expect(t.github.requests.map((r) => r.path)).toEqual(['/repos/acme/api/hooks'])

    t.clearLogs()
    await t.stop(await t.boot())
    expect(t.slack.calls.map((c) => c.method)).toEqual(['auth.test'])
    expect(t.github.requests).toHaveLength(0)

    const forced = spawnCli('server', ['--force'], t.env(), t.dir.path)
    t.servers.push(forced)
    await waitFor('the forced boot to listen', () => forced.output().includes('"msg":"listening"'))
    expect(t.slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel).sort()).toEqual(['C0000000001', 'C0000000003'])
    expect(t.github.requests.map((r) => r.path)).toContain('/repos/acme/web/hooks')
  })

  it('setting the git-host token re-validates entries whose webhook check was skipped', async () => {
    await t.stop(await t.boot({ GITHUB_TOKEN: '' }))
    expect(t.github.requests).toHaveLength(0)
    await t.stop(await t.boot())
    expect(t.github.requests.map((r) => r.path)).toContain('/repos/acme/api/hooks')
  })

  it('refuses to start on a FAIL: exits 1 before the database or the listener, naming the repository and the fix', async () => {
    t.github.hooks.set('acme/api', [])
    const error = await t.boot().then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('exited with 1 before listening')
    expect(error?.message).toContain('acme/api webhook: no webhook whose URL ends in /webhook/github')
    expect(error?.message).toContain('fix: run prherald-config create-webhook acme/api')
    expect(error?.message).not.toContain('"msg":"listening"')
    expect(error?.message).not.toContain(STARTUP_TOKEN)
    expect(existsSync(join(t.dir.path, 'prherald.db'))).toBe(false)
    expect(existsSync(t.lockFile())).toBe(false)
  })

  it('refuses an http:// PRHERALD_PUBLIC_URL off loopback, as the doctor and setup do; http:// on loopback starts', async () => {
    const error = await t.boot({ PRHERALD_PUBLIC_URL: 'http://prherald.example.com' }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('exited with 1 before listening')
    expect(error?.message).toContain('PRHERALD_PUBLIC_URL public url: http://prherald.example.com is http://: deliveries would cross the network unencrypted')
    expect(error?.message).toContain('fix: set PRHERALD_PUBLIC_URL to the https:// URL the git host delivers to')
    const server = await t.boot({ PRHERALD_PUBLIC_URL: 'http://127.0.0.1:8080' })
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  })

  it('refuses to start when a mapped channel is archived, and SKIP (no token) does not stop it', async () => {
    t.slack.channels.set('C0000000002', { name: 'old-api', is_archived: true })
    const error = await t.boot({ GITHUB_TOKEN: '' }).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('acme/api slack-channel: C0000000002 (#old-api) is archived')
    expect(error?.message).toContain('fix: unarchive the channel')

    t.slack.channels.delete('C0000000002')
    const server = await t.boot({ GITHUB_TOKEN: '' })
    const health = await fetch(`${server.url}/healthz`)
    expect(health.status).toBe(200)
  })
})

describe('prherald-server --config <file>', () => {
  it('reads that file over PRHERALD_CONFIG_FILE and keeps config.lock beside it', async () => {
    mkdirSync(join(t.dir.path, 'etc'))
    const file = writeConfig(join(t.dir.path, 'etc'), startupConfig('C0000000002'))
    const server = spawnCli('server', ['--config', file], t.env({ PRHERALD_CONFIG_FILE: join(t.dir.path, 'missing.yaml') }), t.dir.path)
    t.servers.push(server)
    await waitFor('the server to listen', () => server.output().includes('"msg":"listening"'))
    expect(existsSync(join(dirname(file), 'config.lock'))).toBe(true)
    expect(existsSync(t.lockFile())).toBe(false)
  })
})

describe('the listener is bound first', () => {
  it('a port in use stops the start in one line naming the address and the fix, before the database is touched', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const taken = (holder.address() as AddressInfo).port
    try {
      const result = await runCliAsync('server', [], t.env({ PRHERALD_LISTEN: `127.0.0.1:${taken}` }), t.dir.path)
      expect(result.status).toBe(1)
      expect(result.stderr).toBe(`prherald: PRHERALD_LISTEN / server.listen: cannot listen on 127.0.0.1:${taken} (EADDRINUSE): the address is already in use (another prherald, or another program, listens there)\n`
        + '  fix: choose a free port of this host for PRHERALD_LISTEN / server.listen, e.g. :8081, or stop the program that holds it\n')
      expect(result.stdout).not.toContain('"msg":"listening"')
      expect(existsSync(join(t.dir.path, 'prherald.db'))).toBe(false)
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  it('answers /readyz and deliveries 503 until the start-up steps are done, /healthz 200 starting; nothing refused is stored', async () => {
    writeConfig(t.dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
    const startEnv = t.env({ GITHUB_TOKEN: '' })
    // A post the last run left with an unknown outcome: the start looks for it in Slack before it is ready.
    const opened = await openStore({ settings: loadSettings(startEnv, t.dir.path), logger: createLogger({ format: 'json', level: 'error', write: () => {} }), lockConnections: 1 })
    await opened.store.recordPostIntent({
      provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 99, channel: 'C0000000001', marker: 'd-0', mentions: [],
      state: 'unannounced', lifecycle: { state: 'unannounced' } as never, lastDeliveryId: null, reactions: [], createdAt: Date.now(),
    })
    await opened.close()
    let release!: () => void
    t.slack.faults.push({ method: 'conversations.history', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })

    const server = spawnCli('server', [], startEnv, t.dir.path)
    t.servers.push(server)
    await waitFor('the lookup of the interrupted post', () => t.slack.calls.some((c) => c.method === 'conversations.history'))
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
  const db = new Database(join(t.dir.path, 'prherald.db'), { readonly: true })
  try {
    return (db.prepare('SELECT delivery_id FROM deliveries').all() as Array<{ delivery_id: string }>).map((r) => r.delivery_id)
  } finally {
    db.close()
  }
}
