import { describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { EVENT_VERSION, LIFECYCLE_VERSION, readStoredEvent, readStoredLifecycle, storedEvent, storedLifecycle } from '../../src/store/stored-json.ts'
import type { ReviewClick } from '../../machines/lifecycle-event.ts'

const click: ReviewClick = { kind: 'review_click', provider: 'github', deliveryId: 'slack:1.2.3', owner: 'acme', repo: 'api', number: 7, user: 'U0123ABCD' }

describe('stored events and lifecycles carry their version', () => {
  it('writes the version and reads back exactly what was written', () => {
    expect(JSON.parse(storedEvent(click))).toMatchObject({ v: EVENT_VERSION })
    expect(readStoredEvent(storedEvent(click))).toEqual(click)
    const lifecycle = { state: 'open', context: { number: 7 } } as never
    expect(JSON.parse(storedLifecycle(lifecycle))).toMatchObject({ v: LIFECYCLE_VERSION })
    expect(readStoredLifecycle(storedLifecycle(lifecycle))).toEqual(lifecycle)
  })

  it('reads what was written before versions existed (no v) as the current shape', () => {
    expect(readStoredEvent(JSON.stringify(click))).toEqual(click)
    expect(readStoredLifecycle('{"state":"merged","context":{"number":7}}')).toEqual({ state: 'merged', context: { number: 7 } })
  })

  it.each([[EVENT_VERSION + 1], ['1'], [-1], [1.5]])('refuses version %j with stored_version, never guessing', (v) => {
    let error: unknown
    try {
      readStoredEvent(JSON.stringify({ ...click, v }))
    } catch (e) {
      error = e
    }
    expect(isPrheraldError(error, 'stored_version')).toBe(true)
    expect((error as Error).message).toContain(`reads up to ${EVENT_VERSION}`)
  })
})
