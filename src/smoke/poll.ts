export interface PollOptions {
  timeoutMs: number
  intervalMs: number
}

/**
 * Asks `check` until it answers something other than undefined, or the time is up (then undefined).
 * `check` may throw to stop early: a Slack error that waiting cannot fix.
 */
export async function poll<T>(check: () => Promise<T | undefined>, options: PollOptions): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() >= deadline) return undefined
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.intervalMs, Math.max(0, deadline - Date.now()))))
  }
}
