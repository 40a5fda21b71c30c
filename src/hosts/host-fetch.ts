import type { PrheraldError } from '../errors.ts'
import type { FailedCall } from './git-host-error.ts'

/**
 * A 429's wait: its Retry-After in seconds, else a minute (GitLab's limits are per minute; Bitbucket's hourly
 * window rolls by the minute, so a minute is what frees budget again).
 */
function retryAfter(header: string | null): number {
  const seconds = Number(header)
  return header !== null && header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 60_000
}

/**
 * One call to a git host's REST API over `fetch`, for the clients written on it (GitLab, Bitbucket): no answer
 * at all, or an answer that is not 2xx (its body dropped, a 429's wait read), becomes `fail`'s error.
 */
export async function hostFetch(
  url: string, init: RequestInit, fail: (call: Pick<FailedCall, 'status' | 'cause' | 'retryAfterMs'>) => PrheraldError,
): Promise<Response> {
  let response: Response
  try {
    response = await fetch(url, init)
  } catch (cause) {
    throw fail({ status: undefined, cause })
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw fail({ status: response.status, retryAfterMs: response.status === 429 ? retryAfter(response.headers.get('retry-after')) : undefined })
  }
  return response
}
