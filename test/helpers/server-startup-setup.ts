import { afterEach, beforeEach, expect } from 'vitest'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { startFakeGithub, type FakeGithub } from './fake-github.ts'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import type { RunningCli } from './run-cli-async.ts'
import { killServer, spawnServer, type SpawnedServer } from './spawn-prherald.ts'
import { testEnv, writeConfig, type TestConfig } from './start-prherald.ts'
import { makeTempDir } from './temp-dir.ts'

/** The GitHub token the fake GitHub accepts in the start-up tests. */
export const STARTUP_TOKEN = 'ghp-startup-token-77aa'

export const startupHook = (url: string) => ({ id: 1, name: 'web' as const, active: true, events: [...GITHUB_REQUIRED_EVENTS], config: { url, content_type: 'json', insecure_ssl: '0' } })

/** acme's repositories in one channel, acme/api in `apiChannel`. */
export const startupConfig = (apiChannel: string): TestConfig => ({
  git_provider: 'github',
  server: { log_format: 'json' },
  mappings: { acme: { '*': { channel: 'C0000000001' }, api: { channel: apiChannel } } },
})

/** What a start-up test runs against, made afresh for each test by useServerStartup. */
export interface ServerStartup {
  dir: ReturnType<typeof makeTempDir>
  slack: FakeSlack
  github: FakeGithub
  /** Servers and commands a test started: killed after it. */
  servers: Array<SpawnedServer | RunningCli>
  env(extra?: Env): Env
  lockFile(): string
  /** Requests sent to Slack and the git host. */
  outbound(): number
  clearLogs(): void
  /** Spawns prherald-server and resolves once it listens. */
  boot(extra?: Env): Promise<SpawnedServer>
  /** SIGTERM, and a clean exit. */
  stop(server: SpawnedServer): Promise<void>
}

/**
 * Per test of prherald-server's start (test/cli/server-startup*.test.ts): a temporary directory with
 * startupConfig, a fake Slack that knows any channel, and a fake GitHub where acme/api and acme/web have
 * prherald's webhook; after it, every server it started killed and all of it removed.
 */
export function useServerStartup(): ServerStartup {
  const t = {
    servers: [],
    env: (extra: Env = {}) => testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, GITHUB_API_URL: t.github.url, GITHUB_TOKEN: STARTUP_TOKEN, ...extra }),
    lockFile: () => join(t.dir.path, 'config.lock'),
    outbound: () => t.slack.calls.length + t.github.requests.length,
    clearLogs() {
      t.slack.calls.length = 0
      t.github.requests.length = 0
    },
    async boot(extra: Env = {}) {
      const server = await spawnServer(t.env(extra), t.dir.path)
      t.servers.push(server)
      return server
    },
    async stop(server: SpawnedServer) {
      server.child.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
    },
  } as unknown as ServerStartup
  beforeEach(async () => {
    t.dir = makeTempDir()
    t.slack = await startFakeSlack({ anyChannel: true })
    t.github = await startFakeGithub()
    t.github.token = STARTUP_TOKEN
    t.github.repos.set('acme', ['api', 'web'])
    for (const repo of ['api', 'web']) t.github.hooks.set(`acme/${repo}`, [startupHook('https://prherald.example.com/webhook/github')])
    writeConfig(t.dir.path, startupConfig('C0000000002'))
  })
  afterEach(async () => {
    for (const s of t.servers) await killServer(s)
    t.servers = []
    await t.slack.close()
    await t.github.close()
    t.dir.remove()
  })
  return t
}
