import type { PacerClock } from '../../src/slack/pacer-clock.ts'

/** Lets the promise chains a fired timer started run (a pacer's call, its answer, the next wait). */
const settle = async () => { for (let i = 0; i < 20; i++) await Promise.resolve() }

/**
 * A clock that moves only when the test says so; timers fire in order as it passes them. `advance` waits for
 * `quiet` after each timer: by default a few turns of the microtask queue, or whatever the test's calls need
 * (a round trip to PostgreSQL).
 */
export function manualClock() {
  let now = 0
  let nextId = 0
  const timers = new Map<number, { at: number; fire: () => void }>()
  const clock: PacerClock = {
    now: () => now,
    set: (fire, ms) => { timers.set(++nextId, { at: now + ms, fire }); return nextId },
    clear: (handle) => { timers.delete(handle as number) },
  }
  return {
    clock,
    now: () => now,
    timers: () => timers.size,
    /** Moves the clock to `now + ms`, firing every timer due on the way and letting the calls it starts run. */
    async advance(ms: number, quiet: () => Promise<void> = settle) {
      const end = now + ms
      await quiet()
      for (;;) {
        const due = [...timers.entries()].sort((a, b) => a[1].at - b[1].at)[0]
        if (!due || due[1].at > end) break
        timers.delete(due[0])
        now = Math.max(now, due[1].at)
        due[1].fire()
        await quiet()
      }
      now = end
      await quiet()
    },
  }
}
