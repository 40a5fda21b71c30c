import type { IgnoreReason } from '../../machines/pull-request-event.ts'
import { isPrheraldError, type ErrorCode } from '../errors.ts'
import type { IntakeResult } from '../intake/intake.ts'

/** What prherald answered a delivery, as counted: every value comes from a fixed set, never from the delivery. */
export type DeliveryResult = 'accepted' | 'duplicate' | 'ignored' | 'rejected' | 'client_aborted'

/** Why a delivery was refused before it was recorded: the class of its 4xx or 5xx answer. */
export type RejectReason = 'bad_signature' | 'too_large' | 'bad_request' | 'database_busy' | 'database_gone' | 'server_busy' | 'internal'

export interface DeliveryOutcome {
  result: DeliveryResult
  /** The ignore reason for `ignored`, the reject reason for `rejected`, none otherwise. */
  reason?: IgnoreReason | RejectReason
}

const REJECT_REASONS: Partial<Record<ErrorCode, RejectReason>> = {
  bad_signature: 'bad_signature',
  body_too_large: 'too_large',
  bad_json: 'bad_request',
  database_busy: 'database_busy',
  database_gone: 'database_gone',
  server_busy: 'server_busy',
}

/** The intake's answer: a repeated delivery id is its own result, since a burst of them means the host is redelivering. */
export function intakeOutcome(result: IntakeResult): DeliveryOutcome {
  if (result.status === 'accepted') return { result: 'accepted' }
  if (result.reason === 'duplicate_delivery') return { result: 'duplicate' }
  return { result: 'ignored', reason: result.reason }
}

/** A delivery the route refused; an error it does not know is `internal` (its answer was a 500). */
export function rejectedOutcome(error: unknown): DeliveryOutcome {
  // A client that went away was answered by nobody: its own result, never counted with the 5xx.
  if (isPrheraldError(error) && error.code === 'client_aborted') return { result: 'client_aborted' }
  return { result: 'rejected', reason: (isPrheraldError(error) && REJECT_REASONS[error.code]) || 'internal' }
}
