import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { createWriteTurn, takeWriteTurn } from '../../src/store/write-turn.ts'

/** The process's one write turn (server.ack_thread's two SQLite connections): taken, waited for across threads, given up. */
describe('the write turn', () => {
  it('is had by one writer at a time; another gives up after its wait, and has it once it is released', () => {
    const turn = createWriteTurn()
    const release = takeWriteTurn(turn, 10)
    expect(release).toBeTypeOf('function')
    expect(takeWriteTurn(turn, 20)).toBeUndefined()
    release!()
    const again = takeWriteTurn(turn, 10)
    expect(again).toBeTypeOf('function')
    again!()
  })

  it('a writer on another thread that holds it is waited for, and the waiter wakes once it is released', async () => {
    const turn = createWriteTurn()
    // [0]: 1 once the other thread holds the turn; [1]: 1 just before it releases it.
    const flags = new Int32Array(new SharedArrayBuffer(8))
    const holder = new Worker(`
      const { workerData } = require('node:worker_threads')
      const { turn, flags } = workerData
      Atomics.compareExchange(turn, 0, 0, 1)
      Atomics.store(flags, 0, 1)
      Atomics.wait(flags, 0, 1, 200)
      Atomics.store(flags, 1, 1)
      Atomics.store(turn, 0, 0)
      Atomics.notify(turn, 0, 1)
    `, { eval: true, workerData: { turn, flags } })
    try {
      while (Atomics.load(flags, 0) === 0) Atomics.wait(flags, 0, 0, 10)
      const release = takeWriteTurn(turn, 5000)
      // Had only after the other thread said it was releasing it: the wait was for that release.
      expect(Atomics.load(flags, 1)).toBe(1)
      expect(release).toBeTypeOf('function')
      release!()
    } finally {
      await holder.terminate()
    }
  })
})
