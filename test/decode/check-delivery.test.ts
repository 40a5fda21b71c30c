import { describe, expect, it } from 'vitest'
import { hostOf } from '../../src/hosts/registry.ts'
import { githubExample } from '../helpers/github-examples.ts'

const decode = (event: string, payload: unknown) => hostOf('github').delivery.decode(event, 'delivery-1', payload)

describe('decodeGithubCheck', () => {
  it('decodes the real completed check_suite: commit, app, outcome, and the pull requests it lists', () => {
    const payload = githubExample('check_suite', 'completed', (p) => typeof (p.check_suite as { app?: { slug?: unknown } }).app?.slug === 'string')
    expect(decode('check_suite', payload)).toEqual({
      check: true, provider: 'github', deliveryId: 'delivery-1', owner: 'Codertocat', repo: 'Hello-World',
      result: { sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821', source: 'app:github-actions', outcome: 'passed', at: '2019-05-15T15:21:14Z' },
      prNumbers: [], sender: { login: 'Codertocat', isBot: false },
    })
    const listing = githubExample('check_suite', 'completed', (p) => (p.check_suite as { pull_requests: unknown[] }).pull_requests.length > 0)
    expect(decode('check_suite', listing)).toMatchObject({ prNumbers: [2], result: { outcome: 'passed' } })
  })

  it.each([
    ['failure', 'failed'], ['timed_out', 'failed'], ['startup_failure', 'failed'], ['success', 'passed'], ['neutral', 'passed'],
    ['skipped', 'passed'], ['cancelled', 'pending'], ['action_required', 'pending'],
  ])('maps the conclusion %s to %s', (conclusion, outcome) => {
    const payload = githubExample('check_suite', 'completed') as { check_suite: Record<string, unknown> }
    payload.check_suite.conclusion = conclusion
    expect(decode('check_suite', payload)).toMatchObject({ result: { outcome } })
  })

  it('ignores a check suite that is only requested, and one without a conclusion', () => {
    expect(decode('check_suite', githubExample('check_suite', 'requested'))).toMatchObject({ ignored: true, reason: 'unsupported_action' })
    const payload = githubExample('check_suite', 'completed') as { check_suite: Record<string, unknown> }
    payload.check_suite.conclusion = null
    expect(decode('check_suite', payload)).toMatchObject({ ignored: true, reason: 'invalid_payload', owner: 'Codertocat', repo: 'Hello-World' })
  })

  it.each([['success', 'passed'], ['failure', 'failed'], ['error', 'failed'], ['pending', 'pending']])('decodes the real status with state %s as %s', (state, outcome) => {
    const payload = githubExample('status') as Record<string, unknown>
    payload.state = state
    expect(decode('status', payload)).toEqual({
      check: true, provider: 'github', deliveryId: 'delivery-1', owner: 'Codertocat', repo: 'Hello-World',
      result: { sha: '6113728f27ae82c7b1a177c8d03f9e96e0adf246', source: 'status:default', outcome, at: '2019-05-15T15:20:55+00:00' },
      prNumbers: [], sender: { login: 'Codertocat', isBot: false },
    })
  })

  it('never throws on a payload of the wrong shape', () => {
    for (const payload of [null, 'text', [], { sha: 1 }, { action: 'completed', check_suite: [] }]) {
      expect(decode('status', payload)).toMatchObject({ ignored: true })
      expect(decode('check_suite', payload)).toMatchObject({ ignored: true })
    }
  })
})
