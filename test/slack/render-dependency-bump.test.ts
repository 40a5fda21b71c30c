import { describe, expect, it } from 'vitest'
import type { LifecycleState, StoredLifecycle } from '../../machines/decide.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import type { DependencyBump } from '../../machines/dependency-bump.ts'
import { renderMessage, SLACK_LIMITS } from '../../src/slack/render-message.ts'

const ROUTINE: DependencyBump = { bot: 'dependabot[bot]', security: false, compact: true }

function lifecycle(state: LifecycleState, dependencyBump: DependencyBump | undefined, context: Partial<PullRequestContext> = {}): StoredLifecycle {
  return {
    state,
    context: {
      provider: 'github', owner: 'acme', repo: 'api', number: 31, title: 'Bump express from 4.18.2 to 4.19.0',
      url: 'https://github.com/acme/api/pull/31', author: 'dependabot[bot]', createdAt: '2026-11-20T09:30:00Z',
      approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [], reactions: [], dependencyBump, ...context,
    },
  }
}

const render = (l: StoredLifecycle, mentions: string[] = ['<@U1>']) => renderMessage({ lifecycle: l, mentions })
const headline = (l: StoredLifecycle, mentions?: string[]) => {
  const [block, ...rest] = render(l, mentions).blocks
  expect(rest).toEqual([])
  return block!.type === 'section' ? block!.text.text : ''
}

describe('renderMessage of a dependency bump', () => {
  it('a routine bump is one line without mentions', () => {
    expect(headline(lifecycle('open', ROUTINE))).toBe(':package: dependabot[bot] bumped <https://github.com/acme/api/pull/31|PR #31: Bump express from 4.18.2 to 4.19.0>')
    expect(render(lifecycle('open', ROUTINE)).text).toBe('dependabot[bot] bumped PR #31: Bump express from 4.18.2 to 4.19.0 (acme/api) — Open')
  })

  it('a security update is flagged and keeps the mentions', () => {
    const security = lifecycle('open', { ...ROUTINE, security: true })
    expect(headline(security)).toBe('<@U1> :rotating_light: dependabot[bot] security update <https://github.com/acme/api/pull/31|PR #31: Bump express from 4.18.2 to 4.19.0>')
    expect(render(security).text).toContain('security update PR #31')
  })

  it('merged and closed show the label and strike the title through', () => {
    expect(headline(lifecycle('merged', ROUTINE))).toBe('[Merged] :package: dependabot[bot] bumped <https://github.com/acme/api/pull/31|PR #31: ~Bump express from 4.18.2 to 4.19.0~>')
    expect(headline(lifecycle('closed', ROUTINE))).toMatch(/^\[Closed\] :package: .*~Bump express/)
    expect(render(lifecycle('merged', ROUTINE, { approvedBy: ['carol'] })).text).toContain('— Merged · Approved by carol')
  })

  it('standard layout, or no classification: the full three-block message', () => {
    expect(render(lifecycle('open', { ...ROUTINE, compact: false })).blocks).toHaveLength(3)
    expect(render(lifecycle('open', undefined)).blocks).toHaveLength(3)
  })

  it('escapes a login and title from the host, and stays within Slack\'s block size', () => {
    const odd = lifecycle('open', { bot: 'bot<@U9>&co', security: true, compact: true }, { title: `<!here> ${'x'.repeat(10_000)}` })
    const text = headline(odd, Array.from({ length: 5 }, (_, i) => `<@U${i}>`))
    expect(text).toContain('bot&lt;@U9&gt;&amp;co security update')
    expect(text).not.toContain('<!here>')
    expect(text.length).toBeLessThanOrEqual(SLACK_LIMITS.blockText)
    expect(text.endsWith('…>')).toBe(true)
  })
})
