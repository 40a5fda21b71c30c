import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMailboxes } from '../../src/mailbox/mailboxes.ts'

/** A worker whose batches are recorded and finish only when the test releases them; `settle` lets the mailbox go on. */
function heldWorker(settle: () => Promise<unknown> = () => new Promise((r) => setImmediate(r))) {
  const batches: Array<{ key: string; items: number[] }> = []
  const releases: Array<() => void> = []
  const work = (key: string, items: number[]) => {
    batches.push({ key, items })
    return new Promise<void>((resolve) => releases.push(resolve))
  }
  const releaseNext = async () => {
    releases.shift()?.()
    await settle()
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

  describe('with a fold window', () => {
    afterEach(() => { vi.useRealTimers() })
    /** A fake clock at 0, a held worker and mailboxes with a 250 ms window, whose first batch (pr-1: [1]) has started. */
    const startedAtZero = async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'Date'], now: 0 })
      const worker = heldWorker(() => vi.advanceTimersByTimeAsync(0))
      const boxes = createMailboxes(worker.work, () => {}, { foldMs: 250 })
      boxes.post('pr-1', 1)
      await vi.advanceTimersByTimeAsync(0)
      return { worker, boxes }
    }

    it('a quiet pull request starts at once; what arrives within the window of its last start is one batch when the window ends', async () => {
      const { worker, boxes } = await startedAtZero()
      expect(worker.batches).toEqual([{ key: 'pr-1', items: [1] }])
      await vi.advanceTimersByTimeAsync(10)
      await worker.releaseNext()
      expect(boxes.active()).toBe(0)
      boxes.post('pr-1', 2)
      await vi.advanceTimersByTimeAsync(100)
      boxes.post('pr-1', 3)
      await vi.advanceTimersByTimeAsync(139) // 249 ms after the first batch started
      expect(worker.batches).toHaveLength(1)
      await vi.advanceTimersByTimeAsync(1)
      expect(worker.batches).toEqual([{ key: 'pr-1', items: [1] }, { key: 'pr-1', items: [2, 3] }])
      await worker.releaseNext()
      // A quarter of a second after that batch started, the pull request is quiet again: no wait.
      await vi.advanceTimersByTimeAsync(300)
      boxes.post('pr-1', 4)
      await vi.advanceTimersByTimeAsync(0)
      expect(worker.batches.at(-1)).toEqual({ key: 'pr-1', items: [4] })
    })

    it('deliveries queued behind a running batch wait for the window too; other pull requests do not wait', async () => {
      const { worker, boxes } = await startedAtZero()
      boxes.post('pr-1', 2)
      boxes.post('pr-2', 3)
      await vi.advanceTimersByTimeAsync(0)
      expect(worker.batches).toEqual([{ key: 'pr-1', items: [1] }, { key: 'pr-2', items: [3] }])
      await worker.releaseNext() // pr-1's first batch ends at 0 ms; its next waits until 250
      await vi.advanceTimersByTimeAsync(200)
      boxes.post('pr-1', 4)
      expect(worker.batches).toHaveLength(2)
      expect(boxes.queued()).toBe(3) // [2, 4] waiting, [3] running
      await vi.advanceTimersByTimeAsync(50)
      expect(worker.batches.at(-1)).toEqual({ key: 'pr-1', items: [2, 4] })
      await worker.releaseNext()
      await worker.releaseNext()
      expect(await boxes.drain(1000)).toBe(true)
    })

    it('drain waits for a batch held by its window, and clear drops it', async () => {
      const { worker, boxes } = await startedAtZero()
      await worker.releaseNext()
      boxes.post('pr-1', 2)
      const drained = boxes.drain(1000)
      await vi.advanceTimersByTimeAsync(250)
      expect(worker.batches.at(-1)).toEqual({ key: 'pr-1', items: [2] })
      await worker.releaseNext()
      expect(await drained).toBe(true)
      boxes.post('pr-1', 3)
      boxes.clear()
      await vi.advanceTimersByTimeAsync(250)
      expect(worker.batches).toHaveLength(2)
      expect(boxes.active()).toBe(0)
    })
  })

  it('applies at most `parallel` batches at once; the others wait in arrival order and gather what arrives meanwhile', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {}, { parallel: 2 })
    boxes.post('pr-1', 1)
    boxes.post('pr-2', 2)
    boxes.post('pr-3', 3)
    boxes.post('pr-4', 4)
    await turn()
    expect(worker.batches.map((b) => b.key)).toEqual(['pr-1', 'pr-2'])
    boxes.post('pr-3', 5)
    expect(boxes.active()).toBe(4)
    await worker.releaseNext() // pr-1 done: its slot goes to pr-3, the first waiting
    expect(worker.batches.at(-1)).toEqual({ key: 'pr-3', items: [3, 5] })
    expect(worker.batches).toHaveLength(3)
    await worker.releaseNext() // pr-2 done: pr-4
    expect(worker.batches.at(-1)).toEqual({ key: 'pr-4', items: [4] })
    await worker.releaseNext()
    await worker.releaseNext()
    expect(await boxes.drain(1000)).toBe(true)
  })

  it('a batch cleared while it waited for a slot applies nothing and gives the slot on', async () => {
    const worker = heldWorker()
    const boxes = createMailboxes(worker.work, () => {}, { parallel: 1 })
    boxes.post('pr-1', 1)
    boxes.post('pr-2', 2)
    await turn()
    boxes.clear()
    boxes.post('pr-3', 3)
    await worker.releaseNext()
    await turn()
    expect(worker.batches).toEqual([{ key: 'pr-1', items: [1] }, { key: 'pr-3', items: [3] }])
    await worker.releaseNext()
    expect(await boxes.drain(1000)).toBe(true)
    expect(boxes.queued()).toBe(0)
  })
  it('while requests are being answered admits only `parallelWhileAcking` batches, and the rest once they are quiet', async () => {
    const worker = heldWorker()
    let busy = true
    const quiet: Array<() => void> = []
    const boxes = createMailboxes(worker.work, () => {}, { parallel: 3, acks: { busy: () => busy, onQuiet: (l) => void quiet.push(l) }, parallelWhileAcking: 1 })
    for (const key of ['pr-1', 'pr-2', 'pr-3', 'pr-4']) boxes.post(key, 1)
    await turn()
    expect(worker.batches.map((b) => b.key)).toEqual(['pr-1'])
    await worker.releaseNext() // still acking: pr-1's slot goes to pr-2 alone
    expect(worker.batches.map((b) => b.key)).toEqual(['pr-1', 'pr-2'])
    busy = false
    for (const listener of quiet) listener()
    await turn()
    expect(worker.batches.map((b) => b.key)).toEqual(['pr-1', 'pr-2', 'pr-3', 'pr-4'])
    busy = true
    boxes.post('pr-5', 1) // three run: a newcomer waits though the limit while acking is already exceeded
    await turn()
    expect(worker.batches).toHaveLength(4)
    for (let i = 0; i < 3; i++) await worker.releaseNext()
    expect(worker.batches.map((b) => b.key).at(-1)).toBe('pr-5')
    await worker.releaseNext()
    expect(await boxes.drain(1000)).toBe(true)
  })
})
