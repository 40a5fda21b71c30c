import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import type { Mappings } from '../../src/config/schema.ts'
import { DEFAULTS, type DigestSettings } from '../../src/config/settings.ts'
import { candidatesBySchedule, digestSchedules } from '../../src/digest/digest-schedules.ts'
import type { OpenMessage } from '../../src/store/store.ts'

const digest = (over: Partial<DigestSettings> = {}): DigestSettings => ({ ...DEFAULTS.digest, ...over })

const mappings = {
  acme: {
    '*': { channel: 'C0000000001' },
    api: { channel: 'C0000000002', digest: { schedule: '0 10 * * 1' } },
    legacy: { digest: { enabled: false } },
  },
  other: { '*': { channel: 'C0000000003', digest: { enabled: false } }, keen: { digest: { enabled: true } } },
} as unknown as Mappings

function row(owner: string, repo: string, number: number, over: { dependencyBump?: boolean; provider?: string } = {}): OpenMessage {
  const provider = over.provider ?? 'github'
  const lifecycle = {
    state: 'open',
    context: {
      provider, owner, repo, number, title: `PR ${number}`, url: `https://github.com/${owner}/${repo}/pull/${number}`, author: 'alice',
      createdAt: '2026-11-01T00:00:00Z', approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [], reactions: [],
      ...(over.dependencyBump ? { dependencyBump: { compact: true, security: false } } : {}),
    },
  } as unknown as StoredLifecycle
  return { provider, repository: `${owner}/${repo}`, prNumber: number, channel: 'C0000000001', mentions: ['<!here>'], lifecycle, activityAt: 1 }
}

/** One host's mappings: the rows are GitHub's. */
const byHost = new Map([['github', mappings]])

describe('digest schedules', () => {
  it('one schedule per distinct value among the entries whose digest is on, tiers over the global one', () => {
    expect(digestSchedules(byHost, digest())).toEqual(['0 9 * * 1-5', '0 10 * * 1'])
    expect(digestSchedules(byHost, digest({ schedule: '30 8 * * *' }))).toEqual(['30 8 * * *', '0 10 * * 1'])
    // Off globally: only the entries that turn it on themselves.
    // Off globally: only other/keen turns it on for itself, on the global schedule.
    expect(digestSchedules(byHost, digest({ enabled: false }))).toEqual(['0 9 * * 1-5'])
  })

  it('sorts open messages by their repository\'s schedule as configured now; off, unmapped and dependency bots left out', () => {
    const rows = [
      row('acme', 'web', 1), row('acme', 'api', 2), row('acme', 'legacy', 3), row('gone', 'repo', 4),
      row('other', 'quiet', 5), row('other', 'keen', 6), row('acme', 'web', 7, { dependencyBump: true }),
    ]
    const numbers = (m: ReturnType<typeof candidatesBySchedule>) =>
      Object.fromEntries([...m].map(([schedule, list]) => [schedule, list.map((c) => c.lifecycle.context.number)]))
    expect(numbers(candidatesBySchedule(rows, byHost, digest()))).toEqual({ '0 9 * * 1-5': [1, 6], '0 10 * * 1': [2] })
    expect(numbers(candidatesBySchedule(rows, byHost, digest({ includeDependencyBots: true })))).toEqual({ '0 9 * * 1-5': [1, 6, 7], '0 10 * * 1': [2] })
    const [first] = candidatesBySchedule(rows, byHost, digest()).get('0 9 * * 1-5')!
    expect(first).toMatchObject({ channel: 'C0000000001', activityAt: 1, mentions: ['<!here>'] })
  })

  it('reads each row with its own host\'s mappings; a host taken out of the file keeps its rows, unlisted', () => {
    const gitlab = { acme: { '*': { channel: 'C0000000009', digest: { schedule: '0 8 * * 1-5' } } } } as unknown as Mappings
    const rows = [row('acme', 'web', 1), row('acme', 'web', 2, { provider: 'gitlab' }), row('acme', 'web', 3, { provider: 'bitbucket' })]
    const numbers = (m: ReturnType<typeof candidatesBySchedule>) =>
      Object.fromEntries([...m].map(([schedule, list]) => [schedule, list.map((c) => c.lifecycle.context.number)]))
    // The same acme/web on GitHub and on GitLab: each by its own host's entry; Bitbucket is not configured.
    expect(numbers(candidatesBySchedule(rows, new Map([['github', mappings], ['gitlab', gitlab]]), digest()))).toEqual({ '0 9 * * 1-5': [1], '0 8 * * 1-5': [2] })
    expect(numbers(candidatesBySchedule(rows, byHost, digest()))).toEqual({ '0 9 * * 1-5': [1] })
  })
})
