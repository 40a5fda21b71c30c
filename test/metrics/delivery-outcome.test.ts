import { describe, expect, it } from 'vitest'
import { PrheraldError } from '../../src/errors.ts'
import { intakeOutcome, rejectedOutcome } from '../../src/metrics/delivery-outcome.ts'

/** The `result` and `reason` labels of prherald_deliveries_total: fixed sets, whatever the delivery or error. */
describe('delivery outcomes', () => {
  it('takes accepted, duplicate and ignored (with its reason) from the intake', () => {
    expect(intakeOutcome({ status: 'accepted' })).toEqual({ result: 'accepted' })
    expect(intakeOutcome({ status: 'ignored', reason: 'duplicate_delivery' })).toEqual({ result: 'duplicate' })
    expect(intakeOutcome({ status: 'ignored', reason: 'no_mapping' })).toEqual({ result: 'ignored', reason: 'no_mapping' })
  })

  it.each([
    ['bad_signature', 'bad_signature'],
    ['body_too_large', 'too_large'],
    ['bad_json', 'bad_request'],
    ['database_busy', 'database_busy'],
    ['database_gone', 'database_gone'],
    ['slack_transient', 'internal'],
  ] as const)('a rejection with %s is counted as %s', (code, reason) => {
    expect(rejectedOutcome(new PrheraldError(code, 'a message that never becomes a label'))).toEqual({ result: 'rejected', reason })
  })

  it('an error that is not prherald\'s is internal, its message left out', () => {
    expect(rejectedOutcome(new TypeError('Cannot read properties of undefined (reading "x")'))).toEqual({ result: 'rejected', reason: 'internal' })
    expect(rejectedOutcome('a string thrown')).toEqual({ result: 'rejected', reason: 'internal' })
  })
})
