/**
 * The longest an unauthenticated header value (a delivery id, an event name) may be in a log line: real ones
 * are UUIDs and short names; 500 unsigned requests with a 15 KB X-GitHub-Delivery added 7.6 MiB to the log.
 */
export const LOGGED_HEADER_MAX = 100

/** The value cut to LOGGED_HEADER_MAX characters, marked with `…` when it was cut; undefined when absent. */
export function clipHeader(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined
  return value.length > LOGGED_HEADER_MAX ? `${value.slice(0, LOGGED_HEADER_MAX)}…` : value
}
