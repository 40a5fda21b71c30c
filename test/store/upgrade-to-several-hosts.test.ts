import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { packageRoot } from '../../src/package-root.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { deliver, TEST_SECRET } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * test/fixtures/upgrade/prherald-fbb7b92-github.db was written by the single-host release (main at fbb7b92,
 * migrations up to 0017, `meta.git_provider: github`) running its own server and intake: #51 (opened, approved)
 * and #52 (opened) announced in C0000000001, a person look-up for alice, then #51's merge recorded and never
 * applied, as a crash right after its 200 leaves it.
 */
const FIXTURE = join(packageRoot(), 'test/fixtures/upgrade/prherald-fbb7b92-github.db')
const CHANNEL = 'C0000000001'
const GITLAB_CHANNEL = 'C0000000002'
const GITHUB_MAPPINGS = { Codertocat: { '*': { channel: CHANNEL } } }

let dir: ReturnType<typeof makeTempDir> | undefined
let slack: FakeSlack | undefined
let service: TestService | undefined
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack?.close()
  dir?.remove()
})

/** The release's database, with Slack still showing the two messages it posted. */
async function released(): Promise<{ path: string; rows: Array<{ pr_number: number; ts: string }> }> {
  dir = makeTempDir()
  const path = join(dir.path, 'prherald.db')
  copyFileSync(FIXTURE, path)
  const db = new Database(path, { readonly: true })
  const rows = db.prepare('SELECT pr_number, channel, ts, reactions FROM slack_messages ORDER BY pr_number').all() as Array<{ pr_number: number; channel: string; ts: string; reactions: string }>
  expect(db.prepare("SELECT value FROM meta WHERE key = 'git_provider'").get()).toEqual({ value: 'github' })
  db.close()
  expect(rows.map((r) => r.pr_number)).toEqual([51, 52])
  slack = await startFakeSlack({ anyChannel: true })
  for (const r of rows) {
    slack.messages.set(r.ts, { channel: r.channel, ts: r.ts, text: '', blocks: [], reactions: new Set(JSON.parse(r.reactions) as string[]), updates: 0 })
  }
  return { path, rows }
}

function read<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare(sql).all() as T[]
  } finally {
    db.close()
  }
}

describe('a database of the single-host release', () => {
  it('runs under its unchanged config: the pending merge is applied to the existing message, nothing posted', async () => {
    const { path, rows } = await released()
    writeFileSync(join(dir!.path, 'config.yaml'), stringify({ git_provider: 'github', mappings: GITHUB_MAPPINGS }))
    service = await startPrherald(dir!.path, testEnv(dir!.path, 'github', { SLACK_API_URL: slack!.url }))
    expect(await service.settle(15_000)).toBe(true)
    expect(slack!.count('chat.postMessage')).toBe(0)
    expect(slack!.messages.get(rows[0]!.ts)!.reactions.has('twisted_rightwards_arrows')).toBe(true)
    expect(read<{ n: number }>(path, 'SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL')).toEqual([{ n: 0 }])
  })

  it('adds GitLab beside GitHub: the database is used as it is, GitHub\'s messages are edited in place, GitLab\'s posted once', async () => {
    const { path, rows } = await released()
    writeFileSync(join(dir!.path, 'config.yaml'), stringify({
      hosts: { github: { mappings: GITHUB_MAPPINGS }, gitlab: { mappings: { acme: { api: { channel: GITLAB_CHANNEL } } } } },
    }))
    service = await startPrherald(dir!.path, testEnv(dir!.path, 'github', { SLACK_API_URL: slack!.url, GITLAB_WEBHOOK_SECRET: TEST_SECRET }))
    expect(await service.settle(15_000)).toBe(true)
    // The release's pending merge applied to its own message.
    expect(slack!.count('chat.postMessage')).toBe(0)
    expect(slack!.messages.get(rows[0]!.ts)!.updates).toBeGreaterThan(0)

    // A new GitHub event edits #52 in place; a GitLab merge request with the same number is another pull request, posted once.
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('edited', 52, { title: 'Renamed' }) })).status).toBe(200)
    expect((await deliver(service.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 52 }) })).status).toBe(200)
    expect(await service.settle(15_000)).toBe(true)
    expect(slack!.count('chat.postMessage')).toBe(1)
    expect(slack!.messagesIn(GITLAB_CHANNEL).map((m) => m.text)).toEqual([expect.stringContaining('MR !52: ')])
    expect(slack!.messagesIn(CHANNEL)).toHaveLength(2)
    expect(slack!.messages.get(rows[1]!.ts)!.text).toContain('Renamed')

    // The single-host record is gone, and the people cache is keyed by host, its row the release's host's.
    expect(read(path, "SELECT * FROM meta WHERE key = 'git_provider'")).toEqual([])
    expect(read(path, 'SELECT provider, login, slack_user_id FROM person_lookups')).toEqual([{ provider: 'github', login: 'alice', slack_user_id: 'U0ALICE' }])
    expect(read(path, 'SELECT provider, pr_number FROM slack_messages ORDER BY provider, pr_number'))
      .toEqual([{ provider: 'github', pr_number: 51 }, { provider: 'github', pr_number: 52 }, { provider: 'gitlab', pr_number: 52 }])
  })
})
