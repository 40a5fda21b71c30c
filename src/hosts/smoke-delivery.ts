import { randomUUID } from 'node:crypto'
import type { DeliveryReader, SmokeDelivery, SmokeRun } from './contract.ts'
import { SMOKE_TITLE_PREFIX } from './smoke-pull-request.ts'

export const SMOKE_AUTHOR = 'prherald-smoke'
export const SMOKE_REVIEWER = 'prherald-smoke-reviewer'

export const smokeTitle = (run: Pick<SmokeRun, 'runId'>) => `${SMOKE_TITLE_PREFIX} ${run.runId}`

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
