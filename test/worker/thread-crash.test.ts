import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'

/** SIGKILL while a folded batch posts its thread replies: the replay posts no reply twice (issue 14.3). */
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let server: SpawnedServer | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true }) // the spawned server checks the mapped channel at start-up
  writeConfig(dir.path, {
    git_provider: 'github', server: { log_format: 'json' }, slack: { thread_updates: true },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
})
afterEach(async () => {
  await killServer(server)
  server = undefined
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
const replyCalls = () => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.thread_ts !== undefined)

async function kill(): Promise<void> {
  server!.child.kill('SIGKILL')
  expect(await server!.exited).toEqual({ code: null, signal: 'SIGKILL' })
}

it('SIGKILL after one reply was recorded and while another was carried out: the replay adopts it and posts only the rest', async () => {
  // 1. The pull request is announced; then three deliveries stay pending (Slack refuses updates) and the process dies.
  server = await spawnServer(env())
  expect((await deliver(server.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 1) })).status).toBe(200)
  await waitFor('the announcement', () => slack.messagesIn(CHANNEL).length === 1 && pendingDeliveries(dir.path) === 0)
  const thread = slack.messagesIn(CHANNEL)[0]!.ts
  for (let i = 0; i < 100_000; i++) slack.faults.push({ method: 'chat.update', fault: { status: 503 } })
  for (const [event, payload] of [
    ['pull_request_review', review('approved', 1, 'carol')],
    ['pull_request_review', review('changes_requested', 1, 'dave')],
    ['pull_request', pullRequest('closed', 1, { merged: true })],
  ] as const) expect((await deliver(server.url, 'github', { event, payload })).status).toBe(200)
  await waitFor('an update to be refused', () => slack.count('chat.update') > 0)
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(3)

  // 2. The restart replays the three as one batch: the first reply is posted and recorded, the second is carried
  //    out but its answer never comes; the process dies there, before the batch is committed.
  slack.faults.length = 0
  slack.faults.push({ method: 'chat.postMessage', fault: { delayMs: 0 } }, { method: 'chat.postMessage', fault: { lostAnswer: 'hang' } })
  server = await spawnServer(env())
  await waitFor('two replies in the thread', () => slack.repliesTo(CHANNEL, thread).length === 2, 20_000)
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(3)
  expect(replyCalls()).toHaveLength(2)

  // 3. The next start replays the batch again: the recorded reply is skipped without a call, the one with an
  //    unknown outcome is found in the thread, and only the merge is posted.
  slack.calls.length = 0
  server = await spawnServer(env())
  await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0, 20_000)
  expect(slack.repliesTo(CHANNEL, thread).map((r) => r.text)).toEqual([
    ':white_check_mark: carol approved', ':exclamation: dave requested changes', ':twisted_rightwards_arrows: merged by Codertocat',
  ])
  expect(replyCalls()).toHaveLength(1)
  expect(slack.count('conversations.replies')).toBe(1)
  expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
})
