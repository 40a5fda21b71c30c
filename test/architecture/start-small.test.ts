import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { startFakeSlack } from '../helpers/fake-slack.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 25, "start small": what a server loads before its first delivery, with the example config.yaml. The
 * holiday tables, the setup prompts, the PostgreSQL driver and the GitHub client are loaded only when used
 * (a holiday calendar, prherald-setup, a postgres:// URL, the first connect() with a token); ICU's time zone
 * tables only for a zone other than UTC; consola without its reporters and prompts; undici's HTTP client (what
 * `fetch` sets up) at the first real Slack call, not for the start-up check. Checked on the built files a real
 * start imports, with a resolve hook listing every package (and consola file) the process loads.
 */
const dist = (path: string) => pathToFileURL(join(packageRoot(), 'dist', path)).href

/**
 * Runs in a fresh node: loads what a server loads at start, reads `config`, schedules its digest, and prints
 * every package loaded, plus `zone-tables` when an `Intl.DateTimeFormat` was made for a time zone.
 */
function packagesLoaded(config: string): string[] {
  const script = `
import { registerHooks } from 'node:module'
const seen = new Set()
// Synchronous hooks see require() too, which is how the lazy packages are loaded.
registerHooks({ resolve(specifier, context, next) {
  const resolved = next(specifier, context)
  const name = /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(resolved.url)?.[1]
  if (name) seen.add(name)
  if (name === 'consola') seen.add(resolved.url.slice(resolved.url.indexOf('consola/')))
  return resolved
} })
const DateTimeFormat = Intl.DateTimeFormat
Intl.DateTimeFormat = function (locales, options) {
  if (options?.timeZone !== undefined) seen.add('zone-tables')
  return new DateTimeFormat(locales, options)
}
await import(${JSON.stringify(dist('src/service.js'))})
const { loadSettings } = await import(${JSON.stringify(dist('src/config/load-config.js'))})
const { hostOf } = await import(${JSON.stringify(dist('src/hosts/registry.js'))})
const { createScheduler } = await import(${JSON.stringify(dist('src/scheduler/scheduler.js'))})
const settings = loadSettings({ PRHERALD_CONFIG_FILE: ${JSON.stringify(config)} })
for (const own of settings.hosts) own.host.connect({ token: undefined, extra: {}, scheme: undefined }, 'http://127.0.0.1:9')
const digest = createScheduler({ store: { claimRun: async () => true }, logger: { debug() {}, error() {} } })
digest.add({ name: 'digest', when: { cron: settings.digest.schedule, timezone: settings.digest.timezone }, run: async () => {} })
digest.start()
seen.add('next digest ' + new Date(digest.nextRuns()[0].at).toISOString().slice(11, 16))
await digest.stop(Date.now())
console.log(JSON.stringify([...seen]))
`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[]
}

it('a server with the example config loads no holiday tables, setup prompts, PostgreSQL driver, GitHub client, WebSocket client, lifecycle machine or prom-client index', () => {
  const loaded = packagesLoaded(join(packageRoot(), 'config.yaml'))
  expect(loaded).not.toContain('date-holidays')
  expect(loaded).not.toContain('@octokit/rest')
  expect(loaded).not.toContain('@octokit/auth-app')
  expect(loaded).not.toContain('@clack/prompts')
  expect(loaded).not.toContain('pg')
  expect(loaded).not.toContain('ws') // Socket Mode's client, imported only when slack.socket_mode is on
  expect(loaded).not.toContain('zone-tables')
  expect(loaded).not.toContain('xstate') // the lifecycle machine, loaded by the first batch
  expect(loaded).not.toContain('@opentelemetry/api') // prom-client's index, loaded at the first scrape
  expect(loaded).toContain('prom-client') // its classes, from their own files
  expect(loaded).not.toContain('consola/dist/index.mjs')
  expect(loaded).toContain('consola/dist/core.mjs')
  expect(loaded).toContain('h3') // the hook sees what the server does load
  expect(loaded).toContain('next digest 09:00') // "0 9 * * 1-5" in UTC, without the zone tables
})

/** `packagesLoaded` with the example config.yaml, one line of it replaced. */
function packagesLoadedWith(line: string, replacement: string): string[] {
  const dir = makeTempDir()
  try {
    const config = join(dir.path, 'config.yaml')
    writeFileSync(config, readFileSync(join(packageRoot(), 'config.yaml'), 'utf8').replace(line, replacement))
    return packagesLoaded(config)
  } finally {
    dir.remove()
  }
}

it('loads the time zone tables for a zone other than UTC, and still checks it', () => {
  const loaded = packagesLoadedWith('timezone: UTC ', 'timezone: Asia/Kolkata ')
  expect(loaded).toContain('zone-tables')
  expect(loaded).toContain('next digest 03:30') // 09:00 in Kolkata is 03:30 UTC
  expect(() => packagesLoadedWith('timezone: UTC ', 'timezone: Asia/Nowhere ')).toThrow(/"Asia\/Nowhere" is not an IANA time zone/)
})

it('loads the holiday tables once a holiday calendar is configured, and still checks it', () => {
  expect(packagesLoadedWith('# holidays: DE-BY', 'holidays: DE-BY')).toContain('date-holidays')
  expect(() => packagesLoadedWith('# holidays: DE-BY', 'holidays: DE-XX')).toThrow(/DE has no region XX/)
})

it('a real start checks the token with Slack without fetch, so undici sets up its client only at the first real Slack call', async () => {
  const dir = makeTempDir()
  const slack = await startFakeSlack({ anyChannel: true })
  let server: SpawnedServer | undefined
  try {
    // Preloaded into the server: says so on stderr when anything calls fetch, and then does call it.
    const hook = join(dir.path, 'report-fetch.mjs')
    writeFileSync(hook, `const fetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch')
globalThis.fetch = (...args) => { process.stderr.write('fetch called\\n'); return (fetch.get ? fetch.get.call(globalThis) : fetch.value)(...args) }
`)
    writeFileSync(join(dir.path, 'config.yaml'), readFileSync(join(packageRoot(), 'config.yaml'), 'utf8').replace(/^(\s*log_format:) pretty/m, '$1 json'))
    server = await spawnServer({ ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_TOKEN: '' }), NODE_OPTIONS: `--import ${pathToFileURL(hook).href}` })
    expect(slack.count('auth.test')).toBe(1)
    expect(server.entries().find((e) => e.msg === 'configuration validated')).toBeDefined()
    expect(server.lines).not.toContain('fetch called')
  } finally {
    await killServer(server)
    await slack.close()
    dir.remove()
  }
})
