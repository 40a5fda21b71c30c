import { hostOf } from '../../src/hosts/registry.ts'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { connectHosts } from '../../src/config/connect-hosts.ts'
import { loadSettings, readSecrets, secretValues, type Env } from '../../src/config/load-config.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { createLogger } from '../../src/log/logger.ts'
import { databaseSecrets } from '../../src/store/database-secrets.ts'
import { startService, type RunningService, type ServiceOptions } from '../../src/service.ts'
import { CLOSED_API_URLS } from './closed-api-urls.ts'
import { TEST_SECRET, TEST_SLACK_TOKEN } from './signed-delivery.ts'

export interface TestConfig {
  git_provider: Provider
  mappings: Record<string, Record<string, unknown>>
  [key: string]: unknown
}

export function writeConfig(dir: string, config: TestConfig): string {
  const file = join(dir, 'config.yaml')
  writeFileSync(file, stringify(config))
  return file
}

export function testEnv(dir: string, provider: Provider, extra: Env = {}): Env {
  return {
    ...CLOSED_API_URLS,
    PRHERALD_CONFIG_FILE: join(dir, 'config.yaml'),
    PRHERALD_DATABASE_URL: `file:${join(dir, 'prherald.db')}`,
    PRHERALD_LISTEN: '127.0.0.1:0',
    SLACK_BOT_TOKEN: TEST_SLACK_TOKEN,
    // The fake Slack enforces no limits unless a test asks it to, so pacing would only slow the tests down.
    PRHERALD_SLACK_PACING: 'off',
    [hostOf(provider).variables.secret]: TEST_SECRET,
    ...extra,
  }
}

export interface TestService extends RunningService {
  logs: string[]
  /** Parsed JSON log lines. */
  entries(): Array<Record<string, unknown>>
}

/** Starts the real service in-process on 127.0.0.1:0, with JSON logs collected in memory. */
export async function startPrherald(
  dir: string,
  env: Env,
  overrides: Partial<Omit<ServiceOptions, 'settings' | 'secrets' | 'hosts' | 'logger'>> = {},
): Promise<TestService> {
  const settings = loadSettings(env, dir)
  const secrets = readSecrets(env, settings.hosts)
  const logs: string[] = []
  const logger = createLogger({
    format: 'json', level: 'debug', write: (line) => logs.push(line),
    redact: [...secretValues(secrets), ...databaseSecrets(settings.databaseUrl, env)],
  })
  const service = await startService({
    settings: { ...settings, logFormat: 'json' },
    secrets,
    hosts: connectHosts(settings.hosts, secrets.hosts, overrides.clock),
    logger,
    slackRetry: { retries: 2, minTimeout: 10, maxTimeout: 50, factor: 2 },
    slackTimeoutMs: 2000,
    retry: { baseMs: 20, maxMs: 200 },
    ...overrides,
  })
  return Object.assign(service, {
    logs,
    entries: () => logs.map((l) => JSON.parse(l) as Record<string, unknown>),
  })
}

/** Resolves when `check` holds, polling; fails with `what` after `timeoutMs` (a hang guard, not a timing assertion). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/**
 * Resolves once a run of the service's timed job `job` that began after this call has ended: the scheduler
 * logs each run's end (`scheduled job run ended`, debug) and runs a job once at a time, so the second run to
 * end from now began after now. For a test that checks what a job did not do, after the job had its turn.
 */
export async function nextRunOf(service: Pick<TestService, 'entries'>, job: string, timeoutMs = 10_000): Promise<void> {
  const ended = () => service.entries().filter((e) => e.msg === 'scheduled job run ended' && e.job === job).length
  const before = ended()
  await waitFor(`a run of ${job} begun after now`, () => ended() >= before + 2, timeoutMs)
}
