import { afterEach, beforeEach } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import { killServer, spawnServer, type SpawnedServer } from './spawn-prherald.ts'
import { startPrherald, testEnv, writeConfig, type TestConfig, type TestService } from './start-prherald.ts'
import { makeTempDir } from './temp-dir.ts'

export interface HarnessOptions {
  /** The git host of testEnv's secret and of the config (default github). */
  provider?: Provider
  /** config.yaml, written before each test; `git_provider` defaults to `provider`. Omit it to write none. */
  config?: { git_provider?: Provider; mappings: TestConfig['mappings']; [key: string]: unknown }
  /** Options of the fake Slack (e.g. `anyChannel`, which start-up validation needs for a spawned server). */
  slack?: Parameters<typeof startFakeSlack>[0]
  /** Start the in-process service before each test, with the default env. */
  start?: boolean
}

type StartOverrides = Parameters<typeof startPrherald>[2]

/** What one test runs against, made afresh before it and taken down after it (read the fields inside tests). */
export interface Harness {
  dir: ReturnType<typeof makeTempDir>
  slack: FakeSlack
  /** The in-process service `start()` made, if any; stopped after the test. */
  service: TestService | undefined
  /** The real process `spawn()` made, if any; SIGKILLed after the test. */
  server: SpawnedServer | undefined
  /** testEnv for this test's directory with the fake Slack's URL, and `extra` on top; `host` for another git host's secret. */
  env(extra?: Env, host?: Provider): Env
  /** Starts prherald in-process (the env by default) and keeps it as `service`. */
  start(env?: Env, overrides?: StartOverrides): Promise<TestService>
  /** Starts prherald-server as a process (the env by default) and keeps it as `server`. */
  spawn(env?: Env): Promise<SpawnedServer>
  /** Stops the running service now (a test that restarts it); the next `start()` makes a new one. */
  stop(): Promise<{ drained: boolean } | undefined>
  /** Takes everything down and makes it afresh (a new directory and fake Slack): a second, unrelated run in one test. */
  fresh(): Promise<void>
  /**
   * Runs `step` after the test, once the service and server are down (a database they used, another fake):
   * last registered, first run. What must happen before they stop goes in the file's own afterEach, which
   * vitest runs before this one.
   */
  onCleanup(step: () => unknown): void
}

/**
 * The setup most end-to-end test files share: a temp directory with config.yaml, a fake Slack, and prherald
 * started in-process or as a process. Everything is taken down in afterEach, so a failed assertion leaks
 * nothing; a file's own extra teardown goes through `onCleanup`.
 */
export function usePrherald(options: HarnessOptions = {}): Harness {
  const provider = options.provider ?? 'github'
  let cleanups: Array<() => unknown> = []
  const h: Harness = {
    dir: undefined as never,
    slack: undefined as never,
    service: undefined,
    server: undefined,
    env: (extra = {}, host = provider) => testEnv(h.dir.path, host, { SLACK_API_URL: h.slack.url, ...extra }),
    start: async (env, overrides) => (h.service = await startPrherald(h.dir.path, env ?? h.env(), overrides)),
    spawn: async (env) => (h.server = await spawnServer(env ?? h.env())),
    async stop() {
      const service = h.service
      h.service = undefined
      return service?.stop()
    },
    onCleanup: (step) => void cleanups.push(step),
    fresh: async () => {
      await tearDown()
      await setUp()
    },
  }
  const setUp = async () => {
    h.dir = makeTempDir()
    h.slack = await startFakeSlack(options.slack)
    if (options.config) writeConfig(h.dir.path, { git_provider: provider, ...options.config })
    if (options.start) await h.start()
  }
  const tearDown = async () => {
    const steps = cleanups.reverse()
    cleanups = []
    try {
      await h.stop()
      await killServer(h.server)
      h.server = undefined
      for (const step of steps) await step()
    } finally {
      await h.slack.close()
      h.dir.remove()
    }
  }
  beforeEach(setUp)
  afterEach(tearDown)
  return h
}
