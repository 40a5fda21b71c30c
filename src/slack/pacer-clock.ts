/** Time as the pacer sees it, in milliseconds. Injected so tests can drive it by hand. */
export interface PacerClock {
  now(): number
  /** Calls `fire` after `ms` of this clock's time; the handle goes to `clear`. */
  set(fire: () => void, ms: number): unknown
  clear(handle: unknown): void
}

export const systemClock: PacerClock = {
  now: () => performance.now(),
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/**
 * A clock that runs `scale` times faster than the wall clock: a minute of Slack's budgets passes in
 * 60/scale seconds. Only the bench uses it, against a fake Slack running on the same scale.
 */
export function scaledClock(scale: number): PacerClock {
  const start = performance.now()
  return {
    now: () => (performance.now() - start) * scale,
    set: (fire, ms) => setTimeout(fire, ms / scale),
    clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
  }
}
