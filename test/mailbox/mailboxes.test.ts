import { describe, expect, it } from 'vitest'
import { createMailboxes } from '../../src/mailbox/mailboxes.ts'

/** A worker whose batches are recorded and finish only when the test releases them. */
function heldWorker() {
  const batches: Array<{ key: string; items: number[] }> = []
  const releases: Array<() => void> = []
  const work = (key: string, items: number[]) => {
    batches.push({ key, items })
    return new Promise<void>((resolve) => releases.push(resolve))
  }
  const releaseNext = async () => {
    releases.shift()?.()
    await new Promise((r) => setImmediate(r))
  }
  return { batches, work, releaseNext }
}

const turn = () => new Promise((r) => setImmediate(r))

describe('mailboxes', () => {
  it('items posted in one turn are one batch; items posted while it runs are the next batch, in order', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {})
    boxes.post('pr-1', 1)
    boxes.post('pr-1', 2)
    await turn()
    boxes.post('pr-1', 3)
    boxes.post('pr-1', 4)
    await turn()
    expect(worker.batches).toEqual([{ key: 'pr-1', items: [1, 2] }])
    await worker.releaseNext()
    expect(worker.batches[1]).toEqual({ key: 'pr-1', items: [3, 4] })
    await worker.releaseNext()
    expect(boxes.active()).toBe(0)
  })

  it('runs different pull requests side by side and counts the active ones', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {})
    boxes.post('pr-1', 1)
    boxes.post('pr-2', 2)
    await turn()
    expect(worker.batches.map((b) => b.key)).toEqual(['pr-1', 'pr-2'])
    expect(boxes.active()).toBe(2)
    const drained = boxes.drain(5000)
    await worker.releaseNext()
    await worker.releaseNext()
    expect(await drained).toBe(true)
    expect(boxes.active()).toBe(0)
  })

  it('a failing batch is reported and the next batch of the same pull request still runs', async () => {
    const errors: Array<[string, unknown]> = []
    const seen: number[][] = []
    let held: (() => void) | undefined
    const boxes = createMailboxes<number>(async (_key, items) => {
      seen.push(items)
      if (items[0] === 1) {
        await new Promise<void>((resolve) => { held = resolve })
        throw new Error('boom')
      }
    }, (key, error) => errors.push([key, error]))
    boxes.post('pr-1', 1)
    await turn()
    boxes.post('pr-1', 2)
    held?.()
    expect(await boxes.drain(5000)).toBe(true)
    expect(seen).toEqual([[1], [2]])
    expect(errors).toHaveLength(1)
    expect(errors[0]?.[0]).toBe('pr-1')
  })

  it('clear drops queued work but lets the running batch finish; drain times out while work is held', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {})
    boxes.post('pr-1', 1)
    await turn()
    boxes.post('pr-1', 2)
    expect(await boxes.drain(20)).toBe(false)
    boxes.clear()
    await worker.releaseNext()
    expect(await boxes.drain(5000)).toBe(true)
    expect(worker.batches).toEqual([{ key: 'pr-1', items: [1] }])
  })

  it('counts the items not finished yet: waiting, in the running batch, failed ones released, cleared ones dropped', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {})
    expect(boxes.queued()).toBe(0)
    boxes.post('pr-1', 1)
    boxes.post('pr-1', 2)
    boxes.post('pr-2', 3)
    expect(boxes.queued()).toBe(3)
    await turn()
    boxes.post('pr-1', 4)
    expect(boxes.queued()).toBe(4) // [1, 2] and [3] running, [4] waiting
    await worker.releaseNext() // pr-1's first batch
    expect(boxes.queued()).toBe(2)
    boxes.post('pr-2', 5)
    boxes.clear() // drops [5]; [4] and [3] are running
    expect(boxes.queued()).toBe(2)
    await worker.releaseNext()
    await worker.releaseNext()
    expect(boxes.queued()).toBe(0)

    const failing = createMailboxes<number>(async () => { throw new Error('boom') }, () => {})
    failing.post('pr-1', 1)
    expect(await failing.drain(5000)).toBe(true)
    expect(failing.queued()).toBe(0)
  })
})
