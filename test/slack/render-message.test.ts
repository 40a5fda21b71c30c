import { describe, expect, it } from 'vitest'
import type { LifecycleState, StoredLifecycle } from '../../machines/decide.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { escapeText, renderMessage, statusLine } from '../../src/slack/render-message.ts'

/** 2026-11-20T09:30:00Z */
const CREATED_UNIX = 1795167000

function lifecycle(state: LifecycleState, context: Partial<PullRequestContext> = {}): StoredLifecycle {
  return {
    state,
    context: {
      provider: 'github', owner: 'acme', repo: 'api', number: 12, title: 'Add limits', url: 'https://github.com/acme/api/pull/12',
      author: 'bob', createdAt: '2026-11-20T09:30:00Z', approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [],
      reactions: [], ...context,
    },
  }
}

const texts = (m: ReturnType<typeof renderMessage>) =>
  m.blocks.map((b) => (b.type === 'section' ? b.text.text : b.elements.map((e) => ('text' in e ? e.text : '')).join('')))

describe('renderMessage', () => {
  it('renders an open PR: mentions and link, context line with a Slack date, status', () => {
    const message = renderMessage({ lifecycle: lifecycle('open'), mentions: ['<@U1>', '<!subteam^S2>'] })
    expect(message.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '<@U1> <!subteam^S2> <https://github.com/acme/api/pull/12|PR #12: Add limits>' } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `acme/api · bob · opened <!date^${CREATED_UNIX}^{date_short}|2026-11-20>` }] },
      { type: 'section', text: { type: 'mrkdwn', text: 'Open' } },
    ])
    expect(message.text).toBe('PR #12: Add limits (acme/api) — Open')
  })

  it("names the pull request by the host's reference when the context has one (MR !12), else PR #12", () => {
    const message = renderMessage({ lifecycle: lifecycle('merged', { reference: 'MR !12' }), mentions: [] })
    expect(texts(message)[0]).toBe('[Merged] <https://github.com/acme/api/pull/12|MR !12: ~Add limits~>')
    expect(message.text).toBe('MR !12: Add limits (acme/api) — Merged')
    const bump = renderMessage({ lifecycle: lifecycle('open', { reference: 'MR !12', dependencyBump: { bot: 'renovate', security: false, compact: true } }), mentions: [] })
    expect(bump.text).toContain('bumped MR !12: Add limits')
  })

  it('the date token is computed from createdAt', () => {
    const other = renderMessage({ lifecycle: lifecycle('open', { createdAt: '2025-01-02T23:59:59+02:00' }), mentions: [] })
    expect(texts(other)[1]).toContain('<!date^1735855199^{date_short}|2025-01-02>')
  })

  it('renders a draft', () => {
    const message = renderMessage({ lifecycle: lifecycle('draft'), mentions: [] })
    expect(texts(message)).toEqual([
      '<https://github.com/acme/api/pull/12|PR #12: Add limits>',
      expect.stringContaining('acme/api · bob'),
      'Draft',
    ])
    expect(message.text).toBe('PR #12: Add limits (acme/api) — Draft')
  })

  it.each([['merged', '[Merged]', 'Merged'], ['closed', '[Closed]', 'Closed']] as const)('renders %s: prefix, struck title, status', (state, label, status) => {
    const message = renderMessage({ lifecycle: lifecycle(state, { approvedBy: ['carol'] }), mentions: ['<@U1>'] })
    expect(texts(message)[0]).toBe(`<@U1> ${label} <https://github.com/acme/api/pull/12|PR #12: ~Add limits~>`)
    expect(texts(message)[2]).toBe(`${status} · Approved by carol`)
    expect(message.text).toBe(`PR #12: Add limits (acme/api) — ${status} · Approved by carol`)
  })

  it('strikes a title with surrounding spaces tightly, since Slack ignores `~ x ~`', () => {
    const message = renderMessage({ lifecycle: lifecycle('merged', { title: '  Add limits ' }), mentions: [] })
    expect(texts(message)[0]).toContain('|PR #12: ~Add limits~>')
  })

  it('escapes &, < and > in every user-provided text, but not the mentions', () => {
    const message = renderMessage({
      lifecycle: lifecycle('open', {
        title: 'Use <T> & fix a>b', author: 'a<b', owner: 'ac&me', approvedBy: ['x>y'], url: 'https://h/?a=1&b=2',
      }),
      mentions: ['<@U1>'],
    })
    const [headline, context, status] = texts(message)
    expect(headline).toBe('<@U1> <https://h/?a=1&amp;b=2|PR #12: Use &lt;T&gt; &amp; fix a&gt;b>')
    expect(context).toMatch(/^ac&amp;me\/api · a&lt;b · opened /)
    expect(status).toBe('Approved by x&gt;y')
    expect(message.text).toBe('PR #12: Use &lt;T&gt; &amp; fix a&gt;b (ac&amp;me/api) — Approved by x&gt;y')
  })

  it('is pure: the same input gives the same output', () => {
    const input = { lifecycle: lifecycle('open', { commentCount: 3 }), mentions: ['<@U1>'] }
    expect(renderMessage(input)).toEqual(renderMessage(structuredClone(input)))
  })
})

describe('statusLine', () => {
  it.each([
    ['Open', lifecycle('open')],
    ['Draft', lifecycle('draft')],
    ['Merged', lifecycle('merged')],
    ['Closed', lifecycle('closed')],
    ['Approved by a, b', lifecycle('open', { approvedBy: ['a', 'b'] })],
    ['Changes requested by c', lifecycle('open', { changesRequestedBy: ['c'] })],
    ['Approved by a · Changes requested by c · 2 comments', lifecycle('open', { approvedBy: ['a'], changesRequestedBy: ['c'], commentCount: 2 })],
    ['1 comment', lifecycle('open', { commentCount: 1 })],
    ['Draft · 4 comments', lifecycle('draft', { commentCount: 4 })],
    ['Approved by a · Waiting on b · 1 comment', lifecycle('open', {
      approvedBy: ['a'], commentCount: 1,
      reviewRequests: { listedAt: '2026-11-20T10:00:00Z', listed: [{ type: 'user', login: 'a' }, { type: 'user', login: 'b' }], marks: [{ reviewer: { type: 'user', login: 'a' }, at: '2026-11-20T10:00:00Z', asked: false }] },
    })],
  ])('%s', (expected, input) => {
    expect(statusLine(input)).toBe(expected)
  })
})

describe('people in the message', () => {
  const people = { users: { carol: 'U0CAROL', bob: 'W0BOB', dave: 'U0DAVE' }, teams: { backend: 'S0BACK' } }
  const requests = (r: NonNullable<PullRequestContext['reviewRequests']>) => ({ reviewRequests: r })
  const waitingOnDaveAndBackend = requests({
    listedAt: '2026-11-20T10:00:00Z', listed: [{ type: 'user', login: 'dave' }, { type: 'team', slug: 'backend', name: 'Backend' }, { type: 'user', login: 'x<y' }], marks: [],
  })

  it('mentions mapped people in the context and status lines, and leaves the others plain and escaped', () => {
    const message = renderMessage({
      lifecycle: lifecycle('open', { approvedBy: ['carol', 'erin&co'], changesRequestedBy: ['Dave'], ...waitingOnDaveAndBackend }),
      mentions: [], people,
    })
    const [, context, status] = texts(message)
    expect(context).toMatch(/^acme\/api · <@W0BOB> · opened /)
    expect(status).toBe('Approved by <@U0CAROL>, erin&amp;co · Changes requested by <@U0DAVE> · Waiting on <@U0DAVE>, <!subteam^S0BACK>, x&lt;y')
    // The notification text keeps plain names: a fallback for clients without blocks.
    expect(message.text).toBe('PR #12: Add limits (acme/api) — Approved by carol, erin&amp;co · Changes requested by Dave · Waiting on dave, acme/backend, x&lt;y')
  })

  it('without a people map (or unmapped), names everyone plainly, teams as owner/slug', () => {
    const status = texts(renderMessage({ lifecycle: lifecycle('open', { ...waitingOnDaveAndBackend }), mentions: [] }))[2]
    expect(status).toBe('Waiting on dave, acme/backend, x&lt;y')
  })

  it('maps a Bitbucket person by the account id the lifecycle recorded for the shown nickname', () => {
    const bitbucket = { users: { '557058:aaaa-bbbb': 'U0DANA', '5b90d99f96cb052b5f65ab5d': 'U0RUI' }, teams: {} }
    const message = renderMessage({
      lifecycle: lifecycle('open', {
        provider: 'bitbucket', author: 'dana', approvedBy: ['rcosta', 'Rcosta'], accountIds: { dana: '557058:aaaa-bbbb', rcosta: '5b90d99f96cb052b5f65ab5d' },
        reviewRequests: { listedAt: '2026-11-20T10:00:00Z', listed: [{ type: 'user', login: 'mlin', accountId: '557058:aaaa-bbbb' }], marks: [] },
      }),
      mentions: [], people: bitbucket,
    })
    const [, context, status] = texts(message)
    expect(context).toMatch(/ · <@U0DANA> · /)
    // Account ids are matched exactly; a nickname is never a key.
    expect(status).toBe('Approved by <@U0RUI>, Rcosta · Waiting on <@U0DANA>')
  })

  it('shows nobody waited on once the pull request ended', () => {
    expect(texts(renderMessage({ lifecycle: lifecycle('merged', { ...waitingOnDaveAndBackend }), mentions: [], people }))[2]).toBe('Merged')
  })

  it('falls back to plain, cut names when the mentions would overflow the block', () => {
    const many = Array.from({ length: 400 }, (_, i) => `user${i}`)
    const users = Object.fromEntries(many.map((login, i) => [login, `U${String(i).padStart(9, '0')}`]))
    const status = texts(renderMessage({ lifecycle: lifecycle('open', { approvedBy: many }), mentions: [], people: { users, teams: {} } }))[2]!
    expect(status.length).toBeLessThanOrEqual(3000)
    expect(status).not.toContain('<@')
    expect(status).toMatch(/^Approved by user0, user1, .*…$/)
  })
})

describe('escapeText', () => {
  it('escapes the ampersand first so entities are not double-escaped', () => {
    expect(escapeText('a & <b> &amp;')).toBe('a &amp; &lt;b&gt; &amp;amp;')
  })
})
