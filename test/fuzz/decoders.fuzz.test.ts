import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { hostOf } from '../../src/hosts/registry.ts'
import { isCheckDelivery } from '../../machines/pull-request-event.ts'
import { isIgnored, type Decoded, type Provider } from '../../machines/pull-request-event.ts'
import { mutatedDelivery, SEEDS } from './arbitraries.ts'

/** Decoders on mutated real payloads: always a well-formed event or an Ignored with a known reason, never a throw. */
export const DECODER_RUNS = 2000

const REASONS = new Set(['ping', 'unsupported_event', 'unsupported_action', 'not_a_pull_request', 'invalid_payload'])
const KINDS = new Set(['opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'updated', 'edited', 'approved', 'changes_requested',
  'commented', 'approval_removed', 'changes_request_removed', 'review_dismissed', 'merged', 'closed', 'synchronize',
  'review_requested', 'review_request_removed'])

function expectWellFormed(provider: Provider, decoded: Decoded): void {
  if (isIgnored(decoded)) {
    expect(REASONS).toContain(decoded.reason)
    return
  }
  expect(decoded.provider).toBe(provider)
  expect(KINDS).toContain(decoded.kind)
  expect(typeof decoded.owner === 'string' && decoded.owner.length > 0).toBe(true)
  expect(typeof decoded.repo === 'string' && decoded.repo.length > 0).toBe(true)
  expect(Number.isSafeInteger(decoded.number) && decoded.number > 0).toBe(true)
  expect(typeof decoded.pr.title).toBe('string')
  for (const field of [decoded.pr.url, decoded.pr.author, decoded.pr.createdAt, decoded.pr.updatedAt, decoded.actor.login]) {
    expect(typeof field === 'string' && field.length > 0).toBe(true)
  }
  expect(['open', 'closed', 'merged']).toContain(decoded.pr.state)
  expect(typeof decoded.pr.draft).toBe('boolean')
  expect(typeof decoded.actor.isBot).toBe('boolean')
  // What intake stores must survive the round trip through the deliveries table.
  expect(JSON.parse(JSON.stringify(decoded))).toEqual(decoded)
}

describe('decoders on mutated real payloads', () => {
  it.each(['github', 'bitbucket'] as const)('%s: always an event or an Ignored', (provider) => {
    let events = 0
    let ignored = 0
    fc.assert(fc.property(mutatedDelivery(provider), fc.string({ maxLength: 40 }), ({ event, payload }, deliveryId) => {
      const delivered = hostOf(provider).delivery.decode(event, deliveryId, payload)
      if (isCheckDelivery(delivered)) throw new Error(`a ${event} payload decoded as a check result`)
      const decoded = delivered
      expectWellFormed(provider, decoded)
      if (isIgnored(decoded)) ignored++
      else events++
    }), { numRuns: DECODER_RUNS, seed: SEEDS.decoders })
    console.log(`decoders/${provider}: ${DECODER_RUNS} cases, ${events} events, ${ignored} ignored`)
    // The mutations are mild enough that both outcomes are exercised, not only rejections.
    expect(events).toBeGreaterThan(DECODER_RUNS / 10)
    expect(ignored).toBeGreaterThan(DECODER_RUNS / 10)
  })
})
