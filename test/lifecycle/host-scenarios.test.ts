import { afterEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketHost, githubHost, gitlabHost, type ScenarioHost, type Step } from './host-scenario-hosts.ts'

/**
 * One table of lifecycle rows, run end to end against every host: a real server, the fake Slack and each
 * host's own payloads (GitHub's and GitLab's documented examples, Bitbucket's documented shape). A row whose
 * steps a host cannot send is n/a for it, and says so in its name.
 */
interface Row {
  name: string
  steps(h: ScenarioHost, n: number): Array<Step | undefined>
  /** Messages in the channel; 1 unless given. */
  messages?: number
  shows?: (h: ScenarioHost, n: number) => string[]
  reactions?: string[]
}

const N = 7
const ROWS: Row[] = [
  { name: 'opened', steps: (h, n) => [h.open(n)], shows: (h, n) => [`${h.reference(n)}: `, 'Open'], reactions: [] },
  { name: 'review requested', steps: (h, n) => [h.open(n), h.requestReview(n, 'alice')], shows: () => ['Waiting on alice'], reactions: [] },
  { name: 'approved', steps: (h, n) => [h.open(n), h.approve(n, 'alice')], shows: () => ['Approved by alice'], reactions: ['white_check_mark'] },
  { name: 'changes requested', steps: (h, n) => [h.open(n), h.requestChanges(n, 'alice')], shows: () => ['Changes requested by alice'], reactions: ['exclamation'] },
  { name: 'comment', steps: (h, n) => [h.open(n), h.comment(n, 'carol')], shows: () => ['1 comment'], reactions: ['speech_balloon'] },
  { name: 'draft waits', steps: (h, n) => [h.open(n, true)], messages: 0 },
  { name: 'ready posts', steps: (h, n) => [h.open(n, true), h.ready(n)], shows: () => ['Open'], reactions: [] },
  { name: 'checks passing', steps: (h, n) => [h.open(n), h.checks?.(n, 'passed')], shows: () => ['Checks passing'], reactions: [] },
  { name: 'checks failing', steps: (h, n) => [h.open(n), h.checks?.(n, 'failed')], shows: () => ['Checks failing'], reactions: ['red_circle'] },
  { name: 'merged', steps: (h, n) => [h.open(n), h.merge(n)], shows: () => ['[Merged]'], reactions: ['twisted_rightwards_arrows'] },
  { name: 'closed', steps: (h, n) => [h.open(n), h.close(n)], shows: () => ['[Closed]'], reactions: ['x'] },
  { name: 'reopened', steps: (h, n) => [h.open(n), h.close(n), h.reopen?.(n)], shows: () => ['Open'], reactions: [] },
]

const HOSTS = [githubHost, bitbucketHost, gitlabHost]
let cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

async function start(h: ScenarioHost): Promise<{ service: TestService; slack: FakeSlack; channel: string }> {
  const dir = makeTempDir()
  const slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: h.id, mappings: h.mappings })
  const service = await startPrherald(dir.path, testEnv(dir.path, h.id, { SLACK_API_URL: slack.url }))
  cleanup.push(() => dir.remove(), () => slack.close(), async () => { await service.stop() })
  const channel = Object.values(Object.values(h.mappings)[0]!)[0] as { channel: string }
  return { service, slack, channel: channel.channel }
}

async function send(service: TestService, h: ScenarioHost, step: Step, deliveryId?: string) {
  const res = await deliver(service.url, h.id, { event: step.event, payload: step.payload, deliveryId })
  expect(res.status).toBe(200)
  expect(await service.settle(10_000)).toBe(true)
  return (await res.json()) as { status: string; reason?: string }
}

const cases = HOSTS.flatMap((h) => ROWS.map((row) => {
  const steps = row.steps(h, N)
  return { h, row, steps, na: steps.some((s) => s === undefined) }
}))

describe('one lifecycle table across hosts', () => {
  it.each(cases.filter((c) => !c.na).map((c) => [c.h.id, c.row.name, c] as const))('%s: %s', async (_host, _row, { h, row, steps }) => {
    const { service, slack, channel } = await start(h)
    for (const step of steps) await send(service, h, step!)
    const messages = slack.messagesIn(channel)
    expect(messages).toHaveLength(row.messages ?? 1)
    if (messages.length === 0) return
    const shown = JSON.stringify(messages[0]!.blocks)
    for (const text of row.shows?.(h, N) ?? []) expect(shown).toContain(text)
    if (row.reactions) expect([...messages[0]!.reactions].sort()).toEqual([...row.reactions].sort())
  })

  it.each(HOSTS.map((h) => [h.id, h] as const))('%s: a replayed delivery is a duplicate', async (_host, h) => {
    const { service, slack, channel } = await start(h)
    await send(service, h, h.open(N))
    const comment = h.comment(N, 'carol')
    expect(await send(service, h, comment, 'replayed-1')).toMatchObject({ status: 'accepted' })
    expect(await send(service, h, comment, 'replayed-1')).toMatchObject({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(JSON.stringify(slack.messagesIn(channel)[0]!.blocks)).toContain('1 comment')
  })

  it('names the rows each host cannot send (n/a)', () => {
    const na = cases.filter((c) => c.na).map((c) => `${c.h.id}: ${c.row.name}`)
    expect(na).toEqual(['bitbucket: checks passing', 'bitbucket: checks failing', 'bitbucket: reopened'])
  })
})
