import { afterEach, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * test/fixtures/upgrade/prherald-1dad472-pending.db was written by the release before the git-host redesign
 * (commit 1dad472, unversioned events and lifecycles): pull requests #41 (opened, approved) and #43 (opened)
 * announced in C0000000001, then three deliveries recorded and never applied, as a crash right after their
 * 200 leaves them: #41 merged, #43 changes requested, #44 opened.
 */
const FIXTURE = join(packageRoot(), 'test/fixtures/upgrade/prherald-1dad472-pending.db')
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir> | undefined
let slack: FakeSlack | undefined
let service: TestService | undefined

afterEach(async () => {
  await service?.stop()
  await slack?.close()
  dir?.remove()
})

it('a database of the previous release, with deliveries pending, is upgraded and its deliveries applied once', async () => {
  dir = makeTempDir()
  copyFileSync(FIXTURE, join(dir.path, 'prherald.db'))
  const before = new Database(join(dir.path, 'prherald.db'), { readonly: true })
  const rows = before.prepare('SELECT pr_number, channel, ts, reactions FROM slack_messages ORDER BY pr_number').all() as Array<{ pr_number: number; channel: string; ts: string; reactions: string }>
  expect(before.prepare('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL').get()).toEqual({ n: 3 })
  before.close()
  expect(rows.map((r) => r.pr_number)).toEqual([41, 43])

  // Slack still shows the two messages the old release posted.
  slack = await startFakeSlack({ anyChannel: true })
  for (const r of rows) {
    slack.messages.set(r.ts, { channel: r.channel, ts: r.ts, text: '', blocks: [], reactions: new Set(JSON.parse(r.reactions) as string[]), updates: 0 })
  }
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
  expect(await service.settle(15_000)).toBe(true)

  // #44 is announced once; #41 and #43 are edited in place, never posted again.
  expect(slack.count('chat.postMessage')).toBe(1)
  const [merged, changes] = rows.map((r) => slack!.messages.get(r.ts)!)
  expect(merged!.updates).toBeGreaterThan(0)
  expect(merged!.reactions.has('twisted_rightwards_arrows')).toBe(true)
  expect(changes!.reactions.has('exclamation')).toBe(true)
  expect(slack.messagesIn(CHANNEL)).toHaveLength(3)

  const after = new Database(join(dir.path, 'prherald.db'), { readonly: true })
  expect(after.prepare('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL').get()).toEqual({ n: 0 })
  const states = after.prepare('SELECT pr_number, state, lifecycle FROM slack_messages ORDER BY pr_number').all() as Array<{ pr_number: number; state: string; lifecycle: string }>
  after.close()
  expect(states.map((s) => [s.pr_number, s.state])).toEqual([[41, 'merged'], [43, 'open'], [44, 'open']])
  // What this release writes carries its version.
  for (const s of states) expect(JSON.parse(s.lifecycle)).toMatchObject({ v: 1 })
  expect(service.entries().filter((e) => e.level === 'error')).toEqual([])
})
