import { describe, expect, it } from 'vitest'
import type { LifecycleState, StoredLifecycle } from '../../machines/decide.ts'
import { buildDigests, digestLine, type DigestCandidate } from '../../src/digest/build-digest.ts'

const DAY = 24 * 3600 * 1000
const now = Date.parse('2026-11-23T09:00:00Z')
const startOfDay = Date.parse('2026-11-23T00:00:00Z')

function candidate(number: number, facts: { channel?: string; state?: LifecycleState; activityAt?: number; author?: string; title?: string; createdDaysAgo?: number; approvedBy?: string[]; changesRequestedBy?: string[] } = {}): DigestCandidate {
  const lifecycle = {
    state: facts.state ?? 'open',
    context: {
      provider: 'github', owner: 'acme', repo: 'api', number, title: facts.title ?? `Change ${number}`, url: `https://github.com/acme/api/pull/${number}`,
      author: facts.author ?? 'bob', createdAt: new Date(now - (facts.createdDaysAgo ?? 3) * DAY).toISOString(),
      approvedBy: facts.approvedBy ?? [], changesRequestedBy: facts.changesRequestedBy ?? [], commentCount: 0, botReviewers: [], reactions: [],
    },
  } as StoredLifecycle
  return { channel: facts.channel ?? 'C1', lifecycle, activityAt: facts.activityAt ?? startOfDay - 1 }
}

const digest = (candidates: DigestCandidate[], leaveOut: string[] = ['dependabot[bot]']) =>
  buildDigests({ candidates, startOfDay, now, leaveOut }, (channel) => (channel === 'C1' ? ['<!here>'] : []))

describe('buildDigests', () => {
  it('lists open pull requests quiet since before the day, oldest first, with link, repository, author, age and what each waits on', () => {
    const [c1] = digest([
      candidate(2, { createdDaysAgo: 2, changesRequestedBy: ['dave'] }),
      candidate(1, { createdDaysAgo: 5 }),
      candidate(3, { createdDaysAgo: 1, approvedBy: ['carol'] }),
    ])
    expect(c1?.count).toBe(3)
    expect(c1?.parent.text).toBe('<!here> 3 pull requests waiting since before today; the list is in the thread.')
    expect(c1?.replies).toHaveLength(1)
    expect(c1?.replies[0]?.text.split('\n')).toEqual([
      '• <https://github.com/acme/api/pull/1|PR #1: Change 1> · acme/api · bob · 5 days old · waiting on review',
      '• <https://github.com/acme/api/pull/2|PR #2: Change 2> · acme/api · bob · 2 days old · changes requested by dave',
      '• <https://github.com/acme/api/pull/3|PR #3: Change 3> · acme/api · bob · 1 day old · approved by carol, not merged',
    ])
  })

  it('leaves out drafts, ended and unannounced pull requests, recent activity, and dependency bots (case-insensitively)', () => {
    expect(digest([
      candidate(1, { state: 'draft' }), candidate(2, { state: 'merged' }), candidate(3, { state: 'closed' }), candidate(4, { state: 'unannounced' }),
      candidate(5, { activityAt: startOfDay }), candidate(6, { author: 'Dependabot[bot]' }),
    ])).toEqual([])
    expect(digest([candidate(6, { author: 'dependabot[bot]' })], []).map((d) => d.count)).toEqual([1])
  })

  it('gives each channel its own digest, with its own mentions, and none to a channel with nothing stuck', () => {
    const digests = digest([candidate(1), candidate(1, { channel: 'C2' }), candidate(2, { channel: 'C3', activityAt: now })])
    expect(digests.map((d) => [d.channel, d.count, d.parent.text.startsWith('<!here>')])).toEqual([['C1', 1, true], ['C2', 1, false]])
  })

  it('splits the list across replies so no reply is over Slack\'s 3000-character section limit, never splitting a line', () => {
    const many = Array.from({ length: 120 }, (_, i) => candidate(i + 1, { title: `A fairly long pull request title number ${i + 1} `.repeat(3) }))
    const [c1] = digest(many)
    expect(c1!.replies.length).toBeGreaterThan(1)
    const lines = c1!.replies.flatMap((r) => r.text.split('\n'))
    expect(lines).toHaveLength(120)
    for (const reply of c1!.replies) expect(reply.text.length).toBeLessThanOrEqual(3000)
  })

  it('escapes titles and cuts very long ones', () => {
    const line = digestLine(candidate(9, { title: `<script>&${'x'.repeat(500)}` }), now)
    expect(line).toContain('PR #9: &lt;script&gt;&amp;')
    expect(line.length).toBeLessThan(400)
  })

  it("names a pull request by the host's reference when its context keeps one", () => {
    const c = candidate(4)
    const withReference = { ...c, lifecycle: { ...c.lifecycle, context: { ...c.lifecycle.context, reference: 'MR !4' } } }
    expect(digestLine(withReference, now)).toContain('|MR !4: Change 4>')
  })
})
