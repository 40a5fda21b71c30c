import { expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { messagesOf, prDeliveries } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const HEALTHY = 'C0000HEALTHY'
const FAILING = 'C0000FAILING'
const h = usePrherald({
  slack: { anyChannel: true },
  config: {
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { '*': { channel: HEALTHY } }, Stuckcat: { '*': { channel: FAILING } } },
  },
})

it('more pull requests retrying on a failing channel than there are call slots do not hold up a healthy one', async () => {
  // Every post to FAILING answers 503 for as long as the test runs; 12 PRs back off there, more than the 8 slots.
  for (let i = 0; i < 100_000; i++) h.slack.faults.push({ method: 'chat.postMessage', channel: FAILING, fault: { status: 503 } })
  await h.start(h.env())
  for (let pr = 1; pr <= 12; pr++) {
    const [opened] = prDeliveries('Stuckcat', pr)
    expect((await deliver(h.service!.url, 'github', opened!)).status).toBe(200)
  }
  await waitFor('every stuck PR to have tried at least once', () =>
    new Set(h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === FAILING).map((c) => String(c.body.text))).size === 12)

  const [opened] = prDeliveries('Codertocat', 99)
  expect((await deliver(h.service!.url, 'github', opened!)).status).toBe(200)
  await waitFor('the healthy PR to be announced', () => messagesOf(h.slack, 'Codertocat', 99).length === 1)
  expect(messagesOf(h.slack, 'Codertocat', 99)[0]!.channel).toBe(HEALTHY)
  expect(h.slack.messagesIn(FAILING)).toHaveLength(0)
})
