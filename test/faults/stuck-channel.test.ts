import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { messagesOf, prDeliveries } from './pr-messages.ts'

const HEALTHY = 'C0000HEALTHY'
const FAILING = 'C0000FAILING'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, {
    git_provider: 'github',
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { '*': { channel: HEALTHY } }, Stuckcat: { '*': { channel: FAILING } } },
  })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

it('more pull requests retrying on a failing channel than there are call slots do not hold up a healthy one', async () => {
  // Every post to FAILING answers 503 for as long as the test runs; 12 PRs back off there, more than the 8 slots.
  for (let i = 0; i < 100_000; i++) slack.faults.push({ method: 'chat.postMessage', channel: FAILING, fault: { status: 503 } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
  for (let pr = 1; pr <= 12; pr++) {
    const [opened] = prDeliveries('Stuckcat', pr)
    expect((await deliver(service.url, 'github', opened!)).status).toBe(200)
  }
  await waitFor('every stuck PR to have tried at least once', () =>
    new Set(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === FAILING).map((c) => String(c.body.text))).size === 12)

  const [opened] = prDeliveries('Codertocat', 99)
  expect((await deliver(service.url, 'github', opened!)).status).toBe(200)
  await waitFor('the healthy PR to be announced', () => messagesOf(slack, 'Codertocat', 99).length === 1)
  expect(messagesOf(slack, 'Codertocat', 99)[0]!.channel).toBe(HEALTHY)
  expect(slack.messagesIn(FAILING)).toHaveLength(0)
})
