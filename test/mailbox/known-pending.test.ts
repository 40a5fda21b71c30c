import { describe, expect, it } from 'vitest'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { createKnownPending } from '../../src/mailbox/known-pending.ts'

/**
 * Issue 25, the processing path: on SQLite a batch of deliveries an intake has just committed is applied
 * without reading them back, but only while nothing else of the pull request can be pending. The running
 * server's side: test/faults/parked-deliveries.test.ts (a later delivery while a failed one waits).
 */
const event = (deliveryId: string) => ({ deliveryId }) as LifecycleEvent
const PR = 'github:Codertocat/Hello-World#7'

describe('known pending deliveries', () => {
  it('knows nothing where other servers may hold deliveries (PostgreSQL): every batch reads', () => {
    const known = createKnownPending(false)
    const a = event('a')
    known.fresh(a)
    expect(known.take(PR, [a])).toBeUndefined()
  })


  it('a batch of fresh deliveries is known; the same events handed back (a retry) are not', () => {
    const known = createKnownPending(true)
    const a = event('a')
    const b = event('b')
    known.fresh(a)
    known.fresh(b)
    expect(known.take(PR, [a, b])).toEqual([a, b])
    expect(known.take(PR, [a, b])).toBeUndefined()
  })

  it('one delivery not handed over by an intake (a replay, a reconcile) makes its batch read the store', () => {
    const known = createKnownPending(true)
    const a = event('a')
    known.fresh(a)
    expect(known.take(PR, [a, event('replayed')])).toBeUndefined()
  })

  it('after a failed batch, or a replay at start, the pull request reads until a read finds only its own batch', () => {
    const known = createKnownPending(true)
    known.unsure(PR)
    const b = event('b')
    known.fresh(b)
    expect(known.take(PR, [b])).toBeUndefined()
    // The read found the failed delivery too: it may still come back (the retry), so still unsure.
    known.applied(PR, [b], ['a', 'b'])
    const c = event('c')
    known.fresh(c)
    expect(known.take(PR, [c])).toBeUndefined()
    // This read found nothing outside its batch: known again, and other pull requests were never affected.
    known.applied(PR, [c], ['c'])
    const d = event('d')
    known.fresh(d)
    expect(known.take(PR, [d])).toEqual([d])
    const other = event('e')
    known.fresh(other)
    expect(known.take('github:Codertocat/Hello-World#8', [other])).toEqual([other])
  })
})
