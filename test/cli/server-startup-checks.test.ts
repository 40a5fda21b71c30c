import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startFakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { startupConfig, useServerStartup } from '../helpers/server-startup-setup.ts'
import { writeConfig } from '../helpers/start-prherald.ts'

/**
 * What prherald-server checks at every start, config.lock current or not: the Slack token (refused: no start;
 * Slack not answering: a warning), the personal scopes and a short webhook secret (warnings), and a git host
 * that cannot be reached (a warning, the entries left for the next start) or refuses the token (no start).
 * The start-up validation and config.lock themselves are test/cli/server-startup.test.ts.
 */
const t = useServerStartup()

describe('the Slack token at every start', () => {
  it('a token Slack refuses stops a start whose config.lock is current, in one line naming SLACK_BOT_TOKEN', async () => {
    await t.stop(await t.boot())
    for (const error of ['invalid_auth', 'token_revoked', 'account_inactive', 'not_authed']) {
      t.slack.faults.push({ method: 'auth.test', fault: { error } })
      const result = await runCliAsync('server', [], t.env(), t.dir.path)
      expect(result.status).toBe(1)
      const lines = result.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`prherald: SLACK_BOT_TOKEN: auth.test answered ${error}; not starting`)
      expect(lines[1]).toMatch(/^ {2}fix: .*SLACK_BOT_TOKEN/)
      expect(lines).toHaveLength(2)
      expect(result.stdout).not.toContain('"msg":"listening"')
    }
  })

  it('logs a warning per personal scope the token lacks at every start, config.lock current or not, and starts', async () => {
    writeConfig(t.dir.path, { ...startupConfig('C0000000002'), notify: { direct_messages: 'on' } })
    t.slack.scopes.push('im:write', 'users:read')
    await t.stop(await t.boot())
    const current = await t.boot()
    expect(current.entries().filter((e) => e.msg === 'check warning' && e.check === 'slack-scope')).toEqual([expect.objectContaining({
      level: 'warn', target: 'im:history', reason: expect.stringContaining('which disables looking up a direct message of unknown outcome'), fix: expect.stringContaining('reinstall the app'),
    })])
    expect((await fetch(`${current.url}/readyz`)).status).toBe(200)
    await t.stop(current)
  })

  it('warns about a webhook secret shorter than 16 characters at every start, as doctor does, and starts', async () => {
    await t.stop(await t.boot())
    const short = await t.boot({ GITHUB_WEBHOOK_SECRET: 'short-s3cret' })
    expect(short.entries().filter((e) => e.msg === 'check warning' && e.check === 'secret')).toEqual([expect.objectContaining({
      level: 'warn', target: 'GITHUB_WEBHOOK_SECRET', reason: 'set, but shorter than 16 characters', fix: expect.stringContaining('openssl rand -hex 32'),
    })])
    expect(JSON.stringify(short.entries())).not.toContain('short-s3cret')
    expect((await fetch(`${short.url}/readyz`)).status).toBe(200)
    await t.stop(short)
  })

  it('Slack not answering (5xx, unreachable) only warns: the server starts, ready', async () => {
    await t.stop(await t.boot())
    t.slack.faults.push({ method: 'auth.test', fault: { status: 503 } })
    const during5xx = await t.boot()
    expect(during5xx.entries()).toContainEqual(expect.objectContaining({
      level: 'warn', msg: 'Slack did not answer auth.test; starting anyway: deliveries are stored and posted once it answers', reason: 'auth.test answered http_503',
    }))
    expect((await fetch(`${during5xx.url}/readyz`)).status).toBe(200)
    await t.stop(during5xx)

    const gone = await startFakeSlack()
    await gone.close()
    const unreachable = await t.boot({ SLACK_API_URL: gone.url })
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({ level: 'warn', reason: expect.stringContaining(`Slack unreachable at ${gone.url}`) }))
    expect((await fetch(`${unreachable.url}/readyz`)).status).toBe(200)
    await t.stop(unreachable)
  })

  it('a git host that cannot be reached only warns, as Slack does: the server starts, ready, and the next start checks those entries', async () => {
    const gone = createServer()
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve))
    const goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`
    await new Promise<void>((resolve) => gone.close(() => resolve()))
    const unreachable = await t.boot({ GITHUB_API_URL: goneUrl })
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({
      level: 'warn', msg: 'could not check: the other side did not answer; starting anyway, the next start checks it again',
      check: 'webhook', target: 'acme/api', reason: expect.stringContaining(`GitHub unreachable at ${goneUrl}`),
    }))
    expect(unreachable.entries()).toContainEqual(expect.objectContaining({ msg: 'config.lock not updated for the entries a side could not check; the next start checks them', entries: 2 }))
    expect((await fetch(`${unreachable.url}/readyz`)).status).toBe(200)
    await t.stop(unreachable)
    const lock = existsSync(t.lockFile()) ? (JSON.parse(readFileSync(t.lockFile(), 'utf8')) as { hosts: { github: { entries: object } } }).hosts.github : { entries: {} }
    expect(Object.keys(lock.entries)).toEqual([])

    // Reachable again: the next start checks them, and locks them.
    t.clearLogs()
    await t.stop(await t.boot())
    expect(t.github.requests.map((r) => r.path)).toContain('/repos/acme/api/hooks')
    expect(Object.keys((JSON.parse(readFileSync(t.lockFile(), 'utf8')) as { hosts: { github: { entries: object } } }).hosts.github.entries).sort()).toEqual(['acme/*', 'acme/api'])
  })

  it('a git-host token the host refuses (401) still stops the start: it can never work', async () => {
    const result = await runCliAsync('server', [], t.env({ GITHUB_TOKEN: 'ghp-refused-token' }), t.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('configuration check failed, not starting')
    expect(result.stderr).toContain('GitHub answered 401')
  })

  it('a first start while Slack is down starts, and leaves the entries unlocked for the next start to check', async () => {
    t.slack.faults.push({ method: 'auth.test', fault: { status: 502 } })
    const first = await t.boot()
    expect(first.entries()).toContainEqual(expect.objectContaining({ msg: 'config.lock not updated: Slack could not check the new or changed entries; the next start checks them', entries: 2 }))
    await t.stop(first)
    expect(existsSync(t.lockFile())).toBe(false)
    t.clearLogs()
    await t.stop(await t.boot())
    expect(t.slack.calls.map((c) => c.method).sort()).toEqual(['auth.test', 'conversations.info', 'conversations.info'])
    expect(existsSync(t.lockFile())).toBe(true)
  })
})

