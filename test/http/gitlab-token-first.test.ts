import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { holdBodies, type HeldBodies } from '../helpers/held-bodies.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'

/**
 * Issue 30.3: GitLab sends its secret in X-Gitlab-Token, so a request without it is refused on its headers,
 * before any byte of its body is read: it holds no room in the body budget, and a flood of them cannot make
 * a correctly tokened delivery wait or be shed (GitLab disables a hook after 4 failures in a row).
 */
const t = useDirAndSlack()
let service: TestService | undefined
const floods: HeldBodies[] = []

beforeEach(async () => {
  writeConfig(t.dir.path, { git_provider: 'gitlab', mappings: { acme: { '*': { channel: 'C0000000001' } } } })
  service = await startPrherald(t.dir.path, testEnv(t.dir.path, 'gitlab', { SLACK_API_URL: t.slack.url }))
})
afterEach(async () => {
  for (const flood of floods.splice(0)) flood.leave()
  await service?.stop()
  service = undefined
})

const tokenless = (count: number, sent: number) =>
  holdBodies({ port: service!.port, path: '/webhook/gitlab', count, declared: 1024 * 1024, sent, headers: { 'X-Gitlab-Event': 'Merge Request Hook' } })
    .then((held) => (floods.push(held), held))

describe('GitLab\'s token, checked on the header', () => {
  it('answers a tokenless request that declares a large body 401 at once, without waiting for its body', async () => {
    const held = await tokenless(1, 0)
    // Node's requestTimeout is 10 s: an answer within 2 s was given before any body arrived.
    await waitFor('an answer', () => held.statuses()[0] !== 0, 2_000)
    expect(held.statuses()).toEqual([401])
  })

  it('keeps answering a correctly tokened delivery 200 while 100 tokenless 1 MiB bodies are held', async () => {
    const held = await tokenless(100, 1000)
    // Their headers are in, each answered on them while its body is still held open: before the fix 16 of them
    // filled the large lane, 64 waited and the rest were shed.
    await waitFor('every tokenless request answered on its headers', () => held.statuses().every((s) => s !== 0), 3_000)
    const payload = { ...mergeRequestHook('open', { iid: 7 }), padding: 'x'.repeat(100 * 1024) }
    const res = await deliver(service!.url, 'gitlab', { event: 'Merge Request Hook', payload })
    expect(res.status).toBe(200)
    await waitFor('every tokenless request answered', () => held.statuses().every((s) => s !== 0), 3_000)
    expect(new Set(held.statuses())).toEqual(new Set([401]))
  })
})
