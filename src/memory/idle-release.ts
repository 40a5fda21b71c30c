import { performance } from 'node:perf_hooks'
import type { Logger } from '../log/logger.ts'
import { fullCollection } from './full-collection.ts'

export interface IdleReleaseOptions {
  logger: Logger
  /** How often the process looks whether it is idle; 5 s, so a burst's memory is back within about 10 s of its end. */
  intervalMs?: number
  /** Tests count the collections. */
  collect?: () => void
}

/** Below this share of the event loop busy over one interval, the process counts as idle. */
const IDLE_UTILIZATION = 0.05
/** Heap used plus external memory may grow this far above its floor before an idle process collects. */
const SLACK_BYTES = 4 * 1024 * 1024

const MiB = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10
const inUse = () => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external
}

/**
 * Gives memory back when the server has nothing to do. V8 collects the old generation only when allocation
 * pushes it to its limit, and an idle process allocates nothing, so the garbage of a burst stayed for minutes
 *. One full collection right after start (the start's own garbage: the config, migrations, the
 * checks), then one whenever an interval passed idle and memory in use is more than a few MiB above what the
 * last collection left. A collection blocks for tens of milliseconds, never while deliveries are flowing.
 */
export function startIdleRelease(options: IdleReleaseOptions): { stop(): void } {
  const collect = options.collect ?? fullCollection
  collect()
  let floor = inUse()
  let previous = performance.eventLoopUtilization()
  const timer = setInterval(() => {
    const busy = performance.eventLoopUtilization(previous).utilization
    previous = performance.eventLoopUtilization()
    const before = inUse()
    if (busy >= IDLE_UTILIZATION || before <= floor + SLACK_BYTES) return
    const started = performance.now()
    collect()
    const after = inUse()
    // What survives is live: the next collection waits for garbage above it, not for a floor it cannot reach.
    floor = Math.max(floor, after)
    options.logger.debug('idle: memory released', { before_mib: MiB(before), after_mib: MiB(after), ms: Math.round(performance.now() - started) })
  }, options.intervalMs ?? 5000)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
