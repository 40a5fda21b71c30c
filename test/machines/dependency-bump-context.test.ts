import { describe, expect, it } from 'vitest'
import type { DependencyBump } from '../../machines/dependency-bump.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import { prEvent, run, type Facts } from './lifecycle-run.ts'

const ROUTINE: DependencyBump = { bot: 'dependabot[bot]', security: false, compact: true }
const bumpEvent = (kind: PullRequestEvent['kind'], bump: DependencyBump | undefined, facts: Facts = {}): PullRequestEvent => {
  const event = prEvent(kind, facts)
  return bump ? { ...event, dependencyBump: bump } : event
}

describe('the dependency-bump classification in the context', () => {
  it('is taken from the event that announces the pull request', () => {
    expect(run(bumpEvent('opened', ROUTINE)).stored?.context.dependencyBump).toEqual(ROUTINE)
    expect(run(bumpEvent('approved', ROUTINE)).stored?.context.dependencyBump).toEqual(ROUTINE)
    expect(run(bumpEvent('opened', undefined)).stored?.context.dependencyBump).toBeUndefined()
  })

  it('is kept from the announcement on: a later event classified differently changes nothing', () => {
    const { stored } = run(
      bumpEvent('opened', ROUTINE),
      bumpEvent('approved', { ...ROUTINE, security: true }),
      bumpEvent('merged', undefined, { state: 'merged' }),
    )
    expect(stored?.state).toBe('merged')
    expect(stored?.context.dependencyBump).toEqual(ROUTINE)
  })

  it('a draft is not announced, so the classification waits for the event that announces it', () => {
    const { stored } = run(bumpEvent('opened', undefined, { draft: true }), bumpEvent('ready_for_review', { ...ROUTINE, security: true }))
    expect(stored?.context.dependencyBump).toEqual({ ...ROUTINE, security: true })
  })
})
