import { expect, it } from 'vitest'
import { pullRequestKey, storedPullRequest } from '../../machines/pull-request-event.ts'

const event = { provider: 'gitlab', owner: 'acme/platform', repo: 'api', number: 42 }

it('gives one key for a pull request whichever shape names it (an event, its context, a stored row)', () => {
  expect(pullRequestKey(event)).toBe('gitlab:acme/platform/api#42')
  expect(storedPullRequest(event)).toEqual({ provider: 'gitlab', repository: 'acme/platform/api', prNumber: 42 })
  expect(pullRequestKey(storedPullRequest(event))).toBe(pullRequestKey(event))
})
