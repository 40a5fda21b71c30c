import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import { foldEvents } from '../../machines/fold-events.ts'
import type { ReviewClick } from '../../machines/lifecycle-event.ts'
import { prEvent } from './lifecycle-run.ts'

let clicks = 0
const click = (user: string): ReviewClick => {
  clicks += 1
  return { kind: 'review_click', provider: 'github', deliveryId: `slack:${clicks}`, owner: 'acme', repo: 'api', number: 7, user }
}
const announced = (): StoredLifecycle => foldEvents(undefined, [prEvent('opened')]).next!
const reviewing = (lifecycle: StoredLifecycle | undefined) => lifecycle?.context.reviewing ?? []

describe('"Start review" claims in the lifecycle', () => {
  it('a click claims the review and updates the message; the same person\'s second click gives it back', () => {
    const claimed = foldEvents(announced(), [click('U1')])
    expect(claimed.changed).toBe(true)
    expect(claimed.next?.state).toBe('open')
    expect(reviewing(claimed.next)).toEqual(['U1'])
    const given = foldEvents(claimed.next, [click('U1')])
    expect(reviewing(given.next)).toEqual([])
  })

  it('keeps several people once each, in click order, and a draft keeps its state and claims', () => {
    const draft = foldEvents(announced(), [prEvent('converted_to_draft', { draft: true })]).next
    const folded = foldEvents(draft, [click('U1'), click('U2'), click('U1'), click('U1')])
    expect(folded.next?.state).toBe('draft')
    expect(reviewing(folded.next)).toEqual(['U2', 'U1'])
  })

  it('an approval by a reviewer mapped to a Slack user clears only that claim', () => {
    const claimed = foldEvents(announced(), [click('U1'), click('U2')]).next
    const approval = prEvent('approved', { actor: 'carol' })
    approval.actor.slackUser = 'U2'
    expect(reviewing(foldEvents(claimed, [approval]).next)).toEqual(['U1'])
  })

  it('a verdict by an unmapped reviewer clears every claim; a comment clears none', () => {
    const claimed = foldEvents(announced(), [click('U1'), click('U2')]).next
    expect(reviewing(foldEvents(claimed, [prEvent('changes_requested')]).next)).toEqual([])
    expect(reviewing(foldEvents(claimed, [prEvent('commented')]).next)).toEqual(['U1', 'U2'])
  })

  it('a click without a stored lifecycle, or on an ended pull request, changes nothing and says why', () => {
    const none = foldEvents(undefined, [click('U1')])
    expect(none).toMatchObject({ next: undefined, changed: false })
    expect(none.steps[0]?.ignored).toBe('no_stored_message')
    const merged = foldEvents(announced(), [prEvent('merged', { state: 'merged' })]).next
    const late = foldEvents(merged, [click('U1')])
    expect(late.changed).toBe(false)
    expect(late.steps[0]?.ignored).toBe('pull_request_ended')
  })

  it('a lifecycle stored before the button existed (no `reviewing`) takes a click', () => {
    const old = announced()
    delete old.context.reviewing
    expect(reviewing(foldEvents(old, [click('U1')]).next)).toEqual(['U1'])
  })
})
