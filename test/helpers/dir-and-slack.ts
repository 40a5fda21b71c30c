import type { FakeSlack } from './fake-slack.ts'
import { usePrherald } from './prherald-harness.ts'
import type { makeTempDir } from './temp-dir.ts'

/**
 * A temp directory and a fake Slack that answers in any channel, made before each test and removed after it
 * (in afterEach, so a failed assertion leaks neither): the setup the CLI tests share, the shared harness
 * without a config or a service. Read them as `t.dir` and `t.slack` inside the tests.
 */
export function useDirAndSlack(): { dir: ReturnType<typeof makeTempDir>; slack: FakeSlack } {
  return usePrherald({ slack: { anyChannel: true } })
}
