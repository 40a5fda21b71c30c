import { afterEach, beforeEach } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import type { ServiceOptions } from '../../src/service.ts'
import { useDirAndSlack } from './dir-and-slack.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from './start-prherald.ts'

/**
 * Per test: a temp directory, a fake Slack, and prherald for GitHub on them (Codertocat's repositories to one
 * channel), with `env` added; stopped and removed after it. `before` runs ahead of the start (a umask, files).
 * Read `t.dir`, `t.slack` and `t.service` inside the tests.
 */
export function useGithubService(env: (dir: string) => Env = () => ({}), options: { before?: (dir: string) => void; overrides?: Partial<ServiceOptions> } = {}) {
  const t = useDirAndSlack() as ReturnType<typeof useDirAndSlack> & { service: TestService }
  beforeEach(async () => {
    options.before?.(t.dir.path)
    writeConfig(t.dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
    t.service = await startPrherald(t.dir.path, testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, ...env(t.dir.path) }), options.overrides)
  })
  afterEach(async () => {
    await t.service.stop()
  })
  return t
}
