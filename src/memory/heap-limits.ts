import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

/** What the server sets for itself; `docs/performance.md` (issue 25) has the bursts these were measured with. */
export interface HeapLimits {
  /** The young generation (both semi-spaces) stops growing at this size, in MiB. Node's default lets it reach 64. */
  youngMiB: number
  /** The old generation may grow to this percentage above what survived its last collection before the next one. */
  oldGrowingPercent: number
}

export const HEAP_LIMITS: HeapLimits = { youngMiB: 16, oldGrowingPercent: 25 }

/** Flags with which the operator chose the heap's sizing: then theirs stands and nothing here is set. */
const OPERATOR_FLAGS = /--(max-semi-space-size|semi-space-growth-factor|heap-growing-percent|optimize-for-size)\b/

/**
 * Keeps a burst from growing the heap by hundreds of MiB that V8 then keeps while idle (issue 12's finding:
 * the garbage of deliveries that wait for a commit is promoted and dies in the old generation). Only flags V8
 * reads at every collection can be set once the process runs: the old generation's growing factor directly;
 * the young generation's size by letting it double (V8's default) until it reaches the cap, and not after.
 * Returns a function that stops watching. Does nothing when the operator sized the heap with node flags.
 */
export function limitHeapGrowth(limits: HeapLimits = HEAP_LIMITS, commandLine = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`): () => void {
  if (OPERATOR_FLAGS.test(commandLine)) return () => {}
  setFlagsFromString(`--heap-growing-percent=${limits.oldGrowingPercent}`)
  const cap = limits.youngMiB * 1024 * 1024
  let growing = true
  const observer = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0
    // V8 may shrink the young generation while idle; below the cap it may grow again.
    if ((young < cap) === growing) return
    growing = young < cap
    setFlagsFromString(`--semi-space-growth-factor=${growing ? 2 : 1}`)
  })
  observer.observe({ entryTypes: ['gc'] })
  return () => observer.disconnect()
}
