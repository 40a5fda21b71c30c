import { afterEach, beforeEach } from 'vitest'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import { makeTempDir } from './temp-dir.ts'

/**
 * A temp directory and a fake Slack that answers in any channel, made before each test and removed after it
 * (in afterEach, so a failed assertion leaks neither): the setup the CLI tests share. Read them as `t.dir`
 * and `t.slack` inside the tests.
 */
export function useDirAndSlack(): { dir: ReturnType<typeof makeTempDir>; slack: FakeSlack } {
  const t = {} as { dir: ReturnType<typeof makeTempDir>; slack: FakeSlack }
  beforeEach(async () => {
    t.dir = makeTempDir()
    t.slack = await startFakeSlack({ anyChannel: true })
  })
  afterEach(async () => {
    await t.slack.close()
    t.dir.remove()
  })
  return t
}
