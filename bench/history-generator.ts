import { decodeGithub } from '../src/hosts/github/decode.ts'
import { initialContext, type PullRequestContext } from '../machines/pull-request.machine.ts'
import { personKey } from '../machines/pull-request-people.ts'
import type { PullRequestEvent } from '../machines/pull-request-event.ts'
import { storedLifecycle } from '../src/store/stored-json.ts'
import type { Progress } from '../src/log/progress.ts'
import { openedPayload } from './correctness-burst.ts'

/** The sizes of a year's history (each a knob of `npm run bench:history`, docs/performance.md). */
export interface HistorySizes {
  repositories: number
  pullRequests: number
  open: number
  deliveries: number
  replies: number
  dmPeople: number
  linked: number
}

/** The pull requests the measurements read: one channel's stuck ones, and one person's open reviews. */
export const STUCK_CHANNEL = 'CSTUCK0001'
export const STUCK = 500
export const REVIEWER = { login: 'reviewer-0', slackUser: 'U0REVIEW00' }
export const REVIEWS = 40
const CHANNELS = 50
const DAY = 86_400_000

export type ColumnType = 'text' | 'bigint'
export interface Table {
  name: string
  columns: readonly (readonly [string, ColumnType])[]
}

/** Where the rows go: one engine's bulk insert (a transaction per call). */
export interface BulkTarget {
  insert(table: Table, rows: readonly unknown[][]): Promise<void>
}

const CHUNK = 20_000

const table = (name: string, columns: string): Table => ({
  name,
  columns: columns.split(' ').map((c): readonly [string, ColumnType] => (c.endsWith(':n') ? [c.slice(0, -2), 'bigint'] : [c, 'text'])),
})

const MESSAGES = table('slack_messages', 'provider repository pr_number:n channel ts mentions state lifecycle last_delivery_id reactions created_at:n touched_at:n activity_at:n')
const DELIVERIES = table('deliveries', 'provider delivery_id pr_key received_at:n applied_at:n')
const REPLIES = table('thread_replies', 'provider repository pr_number:n channel reply_key ts created_at:n')
const HEADS = table('pull_request_heads', 'provider repository sha pr_number:n seen_at:n')
const DIRECT = table('direct_messages', 'recipient dm_key pr_key body due_at:n created_at:n channel ts outcome')
const PREFERENCES = table('person_preferences', 'slack_user direct_messages working_hours updated_at:n')
const LINKED = table('linked_accounts', 'slack_user host login account_key key_id sealed linked_at:n updated_at:n')
const PEOPLE = table('pull_request_people', 'provider repository pr_number:n person touched_at:n')
const LOOKUPS = table('person_lookups', 'provider login outcome slack_user_id expires_at:n')

export const repositoryName = (r: number) => `org/repo-${r}`

/** A pull request's stored lifecycle, as the machine keeps it: decoded from GitHub's own example payload. */
function lifecycleTemplate(): PullRequestContext {
  const decoded = decodeGithub('pull_request', 'history', openedPayload(1)) as PullRequestEvent
  return initialContext(decoded)
}

/**
 * Writes a year's history into `target`: every pull request's message row (most merged or closed, `open`
 * open, STUCK of those quiet for a month in STUCK_CHANNEL, REVIEWS waiting on REVIEWER), its delivery
 * marks, head commits, thread replies, and the people's direct messages, preferences and linked accounts.
 * Times spread over the year before `now`. `stopped()` is asked between chunks: true ends the build early.
 */
export async function buildHistory(target: BulkTarget, sizes: HistorySizes, now: number, progress: Progress, stopped: () => boolean): Promise<void> {
  const template = lifecycleTemplate()
  const yearAgo = now - 365 * DAY
  const openFrom = sizes.pullRequests - sizes.open
  const prAt = (i: number) => yearAgo + Math.floor((i / sizes.pullRequests) * 360 * DAY)
  const pr = (i: number) => ({ repository: repositoryName(i % sizes.repositories), number: Math.floor(i / sizes.repositories) + 1 })
  const channelOf = (i: number) => (i >= openFrom && i - openFrom < STUCK ? STUCK_CHANNEL : `C${String(i % CHANNELS).padStart(9, '0')}`)

  const chunks = async (count: number, into: Table, row: (i: number) => unknown[]) => {
    for (let start = 0; start < count; start += CHUNK) {
      if (stopped()) throw new Error('stopped')
      const rows: unknown[][] = []
      for (let i = start; i < Math.min(count, start + CHUNK); i++) rows.push(row(i))
      await target.insert(into, rows)
      progress.advance(rows.length)
    }
  }

  await chunks(sizes.pullRequests, MESSAGES, (i) => {
    const { repository, number } = pr(i)
    const open = i >= openFrom
    const at = prAt(i)
    const reviewing = open && i - openFrom >= STUCK && i - openFrom < STUCK + REVIEWS
    const login = `person-${i % 300}`
    const context: PullRequestContext = {
      ...template, owner: 'org', repo: repository.slice(4), number, title: `Change ${i}`, author: login,
      url: `https://github.com/${repository}/pull/${number}`, createdAt: new Date(at).toISOString(),
      reviewRequests: { listedAt: new Date(at).toISOString(), listed: [{ type: 'user', login: reviewing ? REVIEWER.login : `person-${(i + 7) % 300}` }], marks: [] },
    }
    const state = open ? 'open' : i % 5 === 0 ? 'closed' : 'merged'
    const touched = open && channelOf(i) === STUCK_CHANNEL ? now - 30 * DAY : Math.min(now, at + 3 * DAY)
    return ['github', repository, number, channelOf(i), `${Math.floor(at / 1000)}.${String(i % 1e6).padStart(6, '0')}`, '[]', state,
      storedLifecycle({ state, context }), `delivery-${i}`, '[]', at, touched, touched]
  })
  // The people of each open pull request, as the previous release kept them with its message rows: its author and
  // the one it waits on (the same logins as the lifecycle above).
  await chunks(sizes.open * 2, PEOPLE, (j) => {
    const i = openFrom + (j >> 1)
    const { repository, number } = pr(i)
    const reviewing = i - openFrom >= STUCK && i - openFrom < STUCK + REVIEWS
    const login = j % 2 === 0 ? `person-${i % 300}` : reviewing ? REVIEWER.login : `person-${(i + 7) % 300}`
    return ['github', repository, number, personKey(login), Math.min(now, prAt(i) + 3 * DAY)]
  })
  await chunks(sizes.deliveries, DELIVERIES, (i) => {
    const p = Math.floor((i / sizes.deliveries) * sizes.pullRequests)
    const { repository, number } = pr(p)
    const at = prAt(p) + (i % 7) * 3_600_000
    return ['github', `mark-${i}`, `github:${repository}#${number}`, at, at + 50]
  })
  await chunks(sizes.pullRequests * 2, HEADS, (i) => {
    const { repository, number } = pr(i >> 1)
    return ['github', repository, `${(i * 2654435761 % 2 ** 32).toString(16).padStart(8, '0')}${'0'.repeat(32)}`, number, prAt(i >> 1)]
  })
  await chunks(sizes.replies, REPLIES, (i) => {
    const p = Math.floor((i / sizes.replies) * sizes.pullRequests)
    const { repository, number } = pr(p)
    return ['github', repository, number, channelOf(p), `review:${i}`, `${Math.floor(prAt(p) / 1000) + i % 1000}.000100`, prAt(p)]
  })
  const people = (i: number) => `U${String(i).padStart(9, '0')}`
  await chunks(sizes.dmPeople * 250, DIRECT, (i) => {
    const p = Math.floor((i / (sizes.dmPeople * 250)) * sizes.pullRequests)
    const { repository, number } = pr(p)
    return [people(i % sizes.dmPeople), `dm-${i}`, `github:${repository}#${number}`, 'review requested', prAt(p), prAt(p), `D${i % sizes.dmPeople}`, `${i}.000`, 'sent']
  })
  await chunks(sizes.dmPeople, PREFERENCES, (i) => [people(i), 'on', '09:00-18:00', now])
  await chunks(sizes.linked, LINKED, (i) => [people(i), 'github', `person-${i}`, `person-${i}`, 'k1', 'sealed-token-placeholder', now, now])
  await chunks(300, LOOKUPS, (i) => ['github', `person-${i}`, 'found', people(i), now + 7 * DAY])
}

/** How many rows buildHistory writes, for the progress bar. */
export const historyRows = (s: HistorySizes) => s.pullRequests * 3 + s.open * 2 + s.deliveries + s.replies + s.dmPeople * 251 + s.linked + 300

/** `count` applied delivery marks a year and more old, for the cleanup to delete. */
export async function addExpiredMarks(target: BulkTarget, count: number, now: number): Promise<void> {
  for (let start = 0; start < count; start += CHUNK) {
    const rows: unknown[][] = []
    for (let i = start; i < Math.min(count, start + CHUNK); i++) rows.push(['github', `expired-${i}`, `github:org/old#${i}`, now - 800 * DAY, now - 800 * DAY])
    await target.insert(DELIVERIES, rows)
  }
}
