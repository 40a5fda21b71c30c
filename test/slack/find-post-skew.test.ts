import { afterEach, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.ts'
import { createOutbox, type OutboxDeps } from '../../src/slack/outbox.ts'
import { postMarker } from '../../src/slack/find-marked-message.ts'
import { createSlackClient } from '../../src/slack/slack-client.ts'
import type { PostIntent } from '../../src/store/store.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'

/**
 * Issue 23.8: the history search for a post of unknown outcome starts before the intent's time by a window
 * that tolerates this host's clock being ahead of Slack's. With a 5-minute window, a clock 10 minutes ahead
 * missed the post and it was posted twice.
 */
let slack: FakeSlack | undefined
afterEach(async () => slack?.close())

it('finds the marked post although this host\'s clock is 10 minutes ahead of Slack\'s', async () => {
  slack = await startFakeSlack()
  const client = createSlackClient({ token: 'xoxb-test', apiUrl: slack.url, logger: createLogger({ format: 'json', level: 'error', write: () => {} }) })
  const ts = await client.postMessage('C0000000001', { text: 'PR', blocks: [] }, postMarker('github:acme/api#7', 'd-1'))
  const intent: PostIntent = {
    provider: 'github', repository: 'acme/api', prNumber: 7, channel: 'C0000000001', marker: 'd-1', mentions: [],
    state: 'open', lifecycle: {} as never, lastDeliveryId: 'd-1', reactions: [], createdAt: Date.now() + 10 * 60_000,
  }
  // The look-up reads Slack only: the outbox's store, sleep and retries are not used.
  const { findPost } = createOutbox({ slack: client, logger: createLogger({ format: 'json', level: 'error', write: () => {} }) } as OutboxDeps)
  expect(await findPost(intent, (_method, run) => run(), {})).toBe(ts)
})
