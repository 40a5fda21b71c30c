import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * `npm run dev`'s script (dist/scripts/dev.js, which builds before it runs): the service on listhen with
 * the example config and the stand-in Slack, on a free port. Saving a real source file recompiles it and
 * replaces the process. The tunnel is not tested: it downloads cloudflared and needs the internet.
 */
const ROOT = packageRoot()
const DEV = join(ROOT, 'dist/scripts/dev.js')
let dev: { child: ChildProcess; output: () => string; exited: Promise<unknown> } | undefined
// The working directory is empty, so that a developer's own .env cannot change what the test runs.
const cwd = makeTempDir()

afterEach(async () => {
  if (dev && dev.child.exitCode === null && dev.child.signalCode === null) {
    dev.child.kill('SIGTERM')
    await dev.exited
  }
  dev = undefined
})
afterAll(() => cwd.remove())

function startDev(dir = cwd.path, env: Record<string, string> = {}, args: string[] = []) {
  const child = spawn(process.execPath, [DEV, '--port', '0', ...args], {
    cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return (dev = { child, output: () => output, exited })
}

/**
 * Saves a file as editors (atomic save) and `cp` do: a temporary file renamed over it, a new inode each time.
 * The same bytes with the same times: the watch sees the rename, while the other test files running beside this
 * one still find dist/ current (test/loopback-only-setup.ts refuses a dist/ older than its source, and a newer
 * dev-server.ts would stay newer than its build for every later test of the run if this one stopped early).
 */
function replaceByRename(file: string): void {
  const { atime, mtime } = statSync(file)
  writeFileSync(`${file}.tmp`, readFileSync(file))
  utimesSync(`${file}.tmp`, atime, mtime)
  renameSync(`${file}.tmp`, file)
}

const listening = (output: string) => [...output.matchAll(/\[dev\] prherald \(pid (\d+)\) listening at (http:\S+)/g)].map((m) => ({ pid: Number(m[1]), url: m[2]! }))
const slackCalls = (output: string, method: string) => output.split('\n').filter((l) => l.startsWith(`[stand-in slack] ${method} `))

function acmeWeb(payload: Record<string, unknown>): Record<string, unknown> {
  const repository = payload.repository as { name: string; full_name: string; owner: { login: string } }
  Object.assign(repository, { name: 'web', full_name: 'acme/web' })
  repository.owner.login = 'acme'
  return payload
}

describe('npm run dev', () => {
  it('serves prherald on listhen with the stand-in Slack, and restarts the whole process when a source file changes', async () => {
    const running = startDev()
    await waitFor('the dev server to listen', () => listening(running.output()).length === 1, 30_000)
    const [first] = listening(running.output())
    // listhen prints the URL it serves.
    expect(running.output()).toContain(`Local:   (prherald)  ${first!.url}/`)
    expect((await fetch(`${first!.url}/healthz`)).status).toBe(200)

    const opened = await deliver(first!.url, 'github', { event: 'pull_request', payload: acmeWeb(githubExample('pull_request', 'opened')), secret: 'demo-webhook-secret' })
    expect(opened.status).toBe(200)
    await waitFor('the stand-in Slack to receive the post', () => slackCalls(running.output(), 'chat.postMessage').length === 1, 20_000)
    expect(slackCalls(running.output(), 'chat.postMessage')[0]).toContain('channel="C0123456789"')

    // Files editors leave beside a source while saving: none of them is a reason to restart. Written just before
    // the source is saved, they are seen in the same burst of changes (or one before it): the one restart below
    // names the source alone.
    const scripts = join(ROOT, 'scripts')
    const litter = ['.#dev-server.ts', 'dev-server.ts~', '.dev-server.ts.swp', 'dev-server.ts.tmp', '4913', 'notes.txt'].map((name) => join(scripts, name))
    try {
      for (const file of litter) writeFileSync(file, 'x')
      replaceByRename(join(scripts, 'dev-server.ts'))
      await waitFor('a new process to listen', () => listening(running.output()).length === 2, 30_000)
    } finally {
      for (const file of litter) rmSync(file, { force: true })
    }
    const second = listening(running.output())[1]!
    expect(second.pid).not.toBe(first!.pid)
    expect(second.url).toBe(first!.url)
    expect(running.output().split('\n').filter((line) => line.startsWith('[dev] restarting'))).toEqual(['[dev] restarting: scripts/dev-server.ts'])
    expect(running.output()).not.toContain('prherald exited')
    // The old process is gone (its database and port closed), not left running beside the new one.
    expect(() => process.kill(first!.pid, 0)).toThrow()

    // The database outlives the restart: the review updates the one message instead of announcing the PR again.
    const review = await deliver(second.url, 'github', { event: 'pull_request_review', payload: acmeWeb(githubExample('pull_request_review', 'submitted')), secret: 'demo-webhook-secret' })
    expect(review.status).toBe(200)
    await waitFor('the review to reach the stand-in Slack', () => slackCalls(running.output(), 'reactions.add').length > 0 || slackCalls(running.output(), 'chat.update').length > 0, 20_000)
    expect(slackCalls(running.output(), 'chat.postMessage')).toHaveLength(1)

    // The same file saved the same way again: still watched (a watch on the replaced file would be deaf now).
    replaceByRename(join(scripts, 'dev-server.ts'))
    await waitFor('a third process to listen', () => listening(running.output()).length === 3, 30_000)
    expect(running.output().split('\n').filter((line) => line.startsWith('[dev] restarting'))).toHaveLength(2)
  })

  it('its "try it" line works with a .env in the clone: demo:deliver signs with the secret the dev server checks', async () => {
    const clone = makeTempDir()
    try {
      writeFileSync(join(clone.path, '.env'), 'GITHUB_WEBHOOK_SECRET=0123456789abcdef0123456789abcdef\n')
      const running = startDev(clone.path)
      await waitFor('the dev server to listen', () => listening(running.output()).length === 1, 30_000)
      expect(running.output()).toContain('[dev] webhook secret: GITHUB_WEBHOOK_SECRET from .env')
      const hint = /\[dev\] try it: npm run demo:deliver (\S+)/.exec(running.output())?.[1]
      expect(hint).toBe(listening(running.output())[0]!.url)
      const tried = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), hint!], { cwd: clone.path, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 })
      expect({ status: tried.status, stderr: tried.stderr }).toEqual({ status: 0, stderr: '' })
      expect(tried.stdout.match(/-> 200 \{"status":"accepted"\}/g)).toHaveLength(3)
    } finally {
      clone.remove()
    }
  })

  it('a configuration error reads as prherald-server prints it, not as a stack; it waits for the fix', async () => {
    const broken = join(cwd.path, 'broken.yaml')
    writeFileSync(broken, 'git_provider: nope\nmappings:\n  acme:\n    web: { channel: C0000000001 }\n')
    const server = spawnSync(process.execPath, [join(ROOT, 'dist/src/cli/server.js')], { cwd: cwd.path, env: { PATH: process.env.PATH, PRHERALD_CONFIG_FILE: broken }, encoding: 'utf8', timeout: 20_000 })
    expect(server.status).toBe(1)
    expect(server.stderr).toMatch(/^prherald: invalid configuration in .*\n {2}- line 1, git_provider: "nope" is not allowed/)
    const running = startDev(cwd.path, { PRHERALD_CONFIG_FILE: broken })
    await waitFor('the dev server to report the exit', () => running.output().includes('[dev] prherald exited (code 1)'), 30_000)
    expect(running.output()).toContain(server.stderr)
    expect(running.output()).not.toMatch(/^\s+at /m)
  })

  it('--tunnel where cloudflared cannot reach Cloudflare: one error with its fix, exit 1, no stack, no directory left', async () => {
    // No internet needed, none reached: untun finds "its" cloudflared in TMPDIR, and this one fails as offline.
    const tmp = makeTempDir()
    try {
      const bin = join(tmp.path, 'node-untun', 'cloudflared.offline')
      mkdirSync(dirname(bin))
      writeFileSync(bin, '#!/bin/sh\necho "ERR failed to request quick Tunnel: dial tcp: lookup api.trycloudflare.com: no such host" >&2\nexit 1\n', { mode: 0o755 })
      const running = startDev(cwd.path, { TMPDIR: tmp.path, CLOUDFLARED_VERSION: 'offline' }, ['--tunnel'])
      const status = await Promise.race([running.exited, new Promise((resolve) => setTimeout(resolve, 25_000, 'still running'))])
      expect(status).toBe(1)
      const lines = running.output().split('\n').filter((line) => line.startsWith('prherald:') || line.startsWith('  fix:'))
      expect(lines).toEqual([
        'prherald: --tunnel: the tunnel did not open (cloudflared exited (code=1, signal=null) before URL was ready: ERR failed to request quick Tunnel: dial tcp: lookup api.trycloudflare.com: no such host)',
        expect.stringMatching(/^ {2}fix: check the internet connection .*or run npm run dev without --tunnel$/),
      ])
      expect(running.output()).not.toMatch(/^\s+at /m)
      expect(readdirSync(tmp.path).filter((name) => name.startsWith('prherald-dev-'))).toEqual([])
    } finally {
      tmp.remove()
    }
  })

  it('on SIGTERM stops prherald and removes the throw-away database', async () => {
    const running = startDev()
    await waitFor('the dev server to listen', () => listening(running.output()).length === 1, 30_000)
    const dataDir = /throw-away database in (\S+);/.exec(running.output())?.[1]
    expect(dataDir && existsSync(dataDir)).toBe(true)
    running.child.kill('SIGTERM')
    await running.exited
    expect(running.child.exitCode).toBe(0)
    expect(existsSync(dataDir!)).toBe(false)
    expect(() => process.kill(listening(running.output())[0]!.pid, 0)).toThrow()
  })

  it('answers --help without building, and refuses an unknown option with one line and exit 2', () => {
    // Through npm, as a developer types it: the npm script must not build before the help.
    const help = spawnSync('npm', ['run', 'dev', '--', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('$ npm run dev -- [--tunnel] [--slack]')
    expect(help.stdout + help.stderr).not.toContain('build')

    const bogus = spawnSync(process.execPath, [DEV, '--bogus'], { cwd: cwd.path, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 20_000 })
    expect(bogus.status).toBe(2)
    expect(bogus.stdout).toBe('')
    expect(bogus.stderr.trimEnd().split('\n')).toEqual(['npm run dev --: Unknown option `--bogus`; see npm run dev -- --help'])

    // The documented options still parse (docs/getting-started.md step 4); --slack without a token stops before the tunnel.
    const slack = spawnSync(process.execPath, [DEV, '--tunnel', '--slack'], { cwd: cwd.path, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 60_000 })
    expect(slack.status).toBe(1)
    expect(slack.stderr).toContain('--slack needs SLACK_BOT_TOKEN')
    expect(slack.stderr).not.toContain('Unknown option')
  })
})
