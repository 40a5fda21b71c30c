import type { Provider } from '../../machines/pull-request-event.ts'
import type { SmokeDelivery, SmokeRun as HostSmokeRun, SmokeStep } from '../hosts/contract.ts'
import { hostOf } from '../hosts/registry.ts'

export type { SmokeDelivery, SmokeStep } from '../hosts/contract.ts'
export { smokeTitle } from '../hosts/smoke-delivery.ts'

export interface SmokeRun extends HostSmokeRun {
  provider: Provider
}

/** One authenticated delivery, headers as the git host sends them, with a fresh delivery id. */
export function smokeDelivery(run: SmokeRun, step: SmokeStep, secret: string): SmokeDelivery {
  return hostOf(run.provider).smokeDelivery(run, step, secret)
}
