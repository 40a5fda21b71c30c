import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'

/** What the server sets for itself; `docs/performance.md` has the bursts these were measured with. */
export interface HeapLimits {
  /** The young generation (both semi-spaces) stops growing near this size, in MiB. Node's default lets it reach 64. */
  youngMiB: number
  /** The old generation may grow to this percentage above what survived its last collection before the next one. */
  oldGrowingPercent: number
}

// 8 MiB, not 16: on the quiet machine the bench's burst grew 43 MiB (median of 7) against 52 with 16, at no
// measurable cost in throughput or ack p99 (docs/performance.md, "Burst growth: a young generation of 8 MiB").
export const HEAP_LIMITS: HeapLimits = { youngMiB: 8, oldGrowingPercent: 25 }

/** Flags with which the operator chose the heap's sizing: then theirs stands and nothing here is set. */
const OPERATOR_FLAG = /^--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|heap[-_]growing[-_]percent|optimize[-_]for[-_]size)(=|$)/
const NODE_ARGS = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]

/**
 * Keeps a burst from growing the heap by hundreds of MiB that V8 then keeps while idle (what the idle-memory measurements found:
 * the garbage of deliveries that wait for a commit is promoted and dies in the old generation). Only flags V8
 * reads at every collection can be set once the process runs: the old generation's growing factor directly;
 * the young generation's size by letting it double (V8's default) until it reaches the cap, and not after.
 * Returns a function that stops watching. Does nothing when the operator sized the heap with node flags.
 */
export function limitHeapGrowth(limits: HeapLimits = HEAP_LIMITS, nodeArgs: readonly string[] = NODE_ARGS): () => void {
  if (nodeArgs.some((arg) => OPERATOR_FLAG.test(arg))) return () => {}
  setFlagsFromString(`--heap-growing-percent=${limits.oldGrowingPercent}`)
  const cap = limits.youngMiB * 1024 * 1024
  let growing = true
  const observer = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0
    // V8 grows the young generation in steps towards twice its size, and this observer hears of collections
    // a little late: doubling stops past half the cap, so that the steps already decided end near the cap.
    // It resumes only once V8 has shrunk it well below (a full collection while idle does).
    const next = growing ? young * 2 <= cap : young * 4 <= cap
    if (next === growing) return
    growing = next
    setFlagsFromString(`--semi-space-growth-factor=${growing ? 2 : 1}`)
  })
  observer.observe({ entryTypes: ['gc'] })
  return () => observer.disconnect()
}
