import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { FULL_REACTIONS, FULL_STATUS, expectOneCorrectMessage, messagesOf, prDeliveries } from '../faults/pr-messages.ts'

const CHANNEL = 'C0000000001'
const PRS = [61, 62, 63, 64]
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let server: SpawnedServer | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true }) // the spawned server checks the mapped channel at start-up
  writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
})
afterEach(async () => {
  await killServer(server)
  server = undefined
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
const refuseForever = (method: string) => { for (let i = 0; i < 100_000; i++) slack.faults.push({ method, fault: { status: 503 } }) }

async function kill(): Promise<void> {
  server!.child.kill('SIGKILL')
  expect(await server!.exited).toEqual({ code: null, signal: 'SIGKILL' })
}

it('SIGKILL in the middle of a folded batch (posted, reactions not yet added) replays it with one message per pull request', async () => {
  // 1. Every delivery is acknowledged while Slack refuses posts, then the process dies: all of them pending.
  refuseForever('chat.postMessage')
  server = await spawnServer(env())
  for (const n of PRS) for (const d of prDeliveries('Codertocat', n)) expect((await deliver(server.url, 'github', d)).status).toBe(200)
  await waitFor('a post to be refused', () => slack.count('chat.postMessage') > 0)
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(PRS.length * 3)

  // 2. The restart replays each pull request's three deliveries as one batch: the post already shows all three.
  //    Reactions fail, so every batch is cut off after its post; the process dies there.
  slack.faults.length = 0
  slack.calls.length = 0
  refuseForever('reactions.add')
  server = await spawnServer(env())
  await waitFor('every pull request posted and a reaction refused', () =>
    PRS.every((n) => messagesOf(slack, 'Codertocat', n).length === 1) && slack.count('reactions.add') >= PRS.length, 20_000)
  for (const n of PRS) expect(messagesOf(slack, 'Codertocat', n)[0]!.text.endsWith(FULL_STATUS)).toBe(true)
  expect(server.entries().filter((e) => e.msg === 'slack message changed')).toHaveLength(0) // no batch finished
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(PRS.length * 3)

  // 3. The next start replays the batches again: the posted messages are found and finished, none posted twice.
  slack.faults.length = 0
  server = await spawnServer(env())
  await waitFor('every message complete', () =>
    PRS.every((n) => messagesOf(slack, 'Codertocat', n)[0]?.reactions.size === FULL_REACTIONS.length), 20_000)
  await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0)
  for (const n of PRS) expectOneCorrectMessage(slack, 'Codertocat', n, CHANNEL)
  expect(slack.count('chat.postMessage')).toBe(PRS.length)
})
