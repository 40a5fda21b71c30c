import { randomUUID } from 'node:crypto'
import type { DeliveryReader, SmokeDelivery, SmokeRun } from './contract.ts'

export const SMOKE_AUTHOR = 'prherald-smoke'
export const SMOKE_REVIEWER = 'prherald-smoke-reviewer'

/** The title says what the message is to anyone who sees it in the channel. */
export const smokeTitle = (run: Pick<SmokeRun, 'runId'>) => `prherald smoke test ${run.runId}`

/**
 * A number of the run's own, far above any a git host has issued and within PostgreSQL's integer: the
 * service handles the test pull request like any other (that is what is proved), each run its own.
 */
export const smokeNumber = (run: Pick<SmokeRun, 'runId'>) => 2_000_000_000 + (Number.parseInt(run.runId, 16) % 100_000_000)

/**
 * A smoke payload as the host sends it: its event header, a fresh delivery id, and the authentication the
 * host puts on a delivery (`auth` turns the secret and the body into the header's value).
 */
export function smokeRequest(reader: DeliveryReader, event: string, payload: unknown, auth: (body: string) => string): SmokeDelivery {
  const body = JSON.stringify(payload)
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'prherald-smoke',
      [reader.headers.event.toLowerCase()]: event,
      [reader.headers.delivery.toLowerCase()]: randomUUID(),
      [reader.headers.auth.toLowerCase()]: auth(body),
      ...reader.extraHeaders,
    },
    body,
  }
}
