import { beforeEach } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import type { ServiceOptions } from '../../src/service.ts'
import { usePrherald, type Harness } from './prherald-harness.ts'
import { writeConfig, type TestService } from './start-prherald.ts'

/**
 * Per test: a temp directory, a fake Slack, and prherald for GitHub on them (Codertocat's repositories to one
 * channel), with `env` added; stopped and removed after it (the shared harness). `before` runs ahead of the
 * config and the start (a umask, files). Read `t.dir`, `t.slack` and `t.service` inside the tests.
 */
export function useGithubService(env: (dir: string) => Env = () => ({}), options: { before?: (dir: string) => void; overrides?: Partial<ServiceOptions> } = {}) {
  const t = usePrherald({ slack: { anyChannel: true } }) as Harness & { service: TestService }
  beforeEach(async () => {
    options.before?.(t.dir.path)
    writeConfig(t.dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
    await t.start(t.env(env(t.dir.path)), options.overrides)
  })
  return t
}
