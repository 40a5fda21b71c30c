import { describe, expect, it } from 'vitest'
import { pullRequest } from '../helpers/github-payloads.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'

/**
 * `server.ack_thread: true` in a real prherald-server process (dist/): SIGTERM stops the thread's listener with
 * the rest and the process exits 0; what the thread acknowledged and Slack held past the window is applied by
 * the next start, once.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald({
  slack: { anyChannel: true },
  config: { server: { ack_thread: true, log_format: 'json', shutdown_timeout_seconds: 1 }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } },
})

describe('the acknowledging thread in prherald-server', () => {
  it('SIGTERM drains and exits 0; nothing acknowledged is lost across the restart', async () => {
    const first = await h.spawn()
    expect(first.entries()).toContainEqual(expect.objectContaining({ msg: 'listening', acknowledging: 'own thread' }))
    let release!: () => void
    h.slack.faults.push({ method: 'chat.postMessage', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
    for (const n of [51, 52, 53]) {
      expect((await deliver(first.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n) })).status).toBe(200)
    }
    await waitFor('a post to reach Slack', () => h.slack.calls.some((c) => c.method === 'chat.postMessage'))
    first.child.kill('SIGTERM')
    expect(await first.exited).toEqual({ code: 0, signal: null })
    expect(first.entries()).toContainEqual(expect.objectContaining({ msg: 'stopped' }))
    expect(pendingDeliveries(h.dir.path)).toBeGreaterThan(0)

    release()
    const second = await h.spawn()
    await waitFor('every pull request posted', () => pendingDeliveries(h.dir.path) === 0, 20_000)
    for (const n of [51, 52, 53]) {
      expect(h.slack.messagesIn(CHANNEL).filter((m) => JSON.stringify(m.blocks).includes(`/pull/${n}`))).toHaveLength(1)
    }
    second.child.kill('SIGTERM')
    expect(await second.exited).toEqual({ code: 0, signal: null })
  })
})
