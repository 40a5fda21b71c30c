import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver, signedDelivery, TEST_SECRET, TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
})

afterEach(async () => {
  await service.stop()
  await slack.close()
  dir.remove()
})

const ignoredLines = () => service.entries().filter((e) => e.msg === 'ignored webhook event')

describe('HTTP intake', () => {
  it('answers /healthz with 200 once listening', async () => {
    const res = await fetch(`${service.url}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
  })

  it('has no route for the provider that is not configured', async () => {
    const payload = { repository: { full_name: 'Codertocat/Hello-World' } }
    const { body, headers } = signedDelivery('bitbucket', { event: 'pullrequest:created', payload })
    const res = await fetch(`${service.url}/webhook/bitbucket`, { method: 'POST', headers, body })
    expect(res.status).toBe(404)
  })

  it('rejects an unsigned delivery with 401', async () => {
    const res = await deliver(service.url, 'github', { event: 'ping', payload: githubExample('ping'), headers: { 'x-hub-signature-256': undefined } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: string }).error).toBe('bad_signature')
  })

  it('rejects a delivery signed with another secret with 401, and logs the refusal without the signature', async () => {
    const res = await deliver(service.url, 'github', { event: 'ping', payload: githubExample('ping'), secret: 'not-the-secret', deliveryId: 'wrong-secret-1' })
    expect(res.status).toBe(401)
    const lines = service.entries().filter((e) => e.msg === 'rejected webhook delivery')
    expect(lines).toEqual([expect.objectContaining({
      level: 'warn', reason: 'bad_signature', status: 401, provider: 'github', event: 'ping', delivery_id: 'wrong-secret-1',
    })])
    expect(JSON.stringify(lines)).not.toContain('sha256=')
  })

  it('rejects a tampered body with 401 and calls no one', async () => {
    const { body, headers } = signedDelivery('github', { event: 'pull_request', payload: githubExample('pull_request', 'opened') })
    const tampered = body.replace('"opened"', '"closed"')
    expect(tampered).not.toBe(body)
    const res = await fetch(`${service.url}/webhook/github`, { method: 'POST', headers, body: tampered })
    expect(res.status).toBe(401)
    expect(slack.calls).toHaveLength(0)
  })

  it('rejects a malformed signature header (wrong prefix, wrong length) with 401', async () => {
    for (const value of ['sha1=abc', 'sha256=', `sha256=${'0'.repeat(63)}`, 'garbage']) {
      const res = await deliver(service.url, 'github', { event: 'ping', payload: githubExample('ping'), headers: { 'x-hub-signature-256': value } })
      expect(res.status, value).toBe(401)
    }
  })

  it('answers 413 to a 2 MiB body and keeps serving', async () => {
    const big = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`
    const { headers } = signedDelivery('github', { event: 'ping', payload: big })
    const res = await fetch(`${service.url}/webhook/github`, { method: 'POST', headers, body: big }).catch((e: unknown) => e)
    expect(res instanceof Response ? res.status : res).toBe(413)
    const health = await fetch(`${service.url}/healthz`)
    expect(health.status).toBe(200)
  })

  it('answers 413 to an oversized chunked body without a Content-Length', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${service.url}/webhook/github`, { method: 'POST', headers: { 'x-github-event': 'ping', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      const chunk = 'x'.repeat(64 * 1024)
      for (let i = 0; i < 20; i++) req.write(chunk)
      req.end()
    })
    expect(status).toBe(413)
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  })

  it('answers 400 to a signed body that is not JSON', async () => {
    const res = await deliver(service.url, 'github', { event: 'pull_request', payload: '{"action": "opened",' })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: string }).error).toBe('bad_json')
  })

  it('answers a ping with 200 and logs the ignore line with its reason', async () => {
    const res = await deliver(service.url, 'github', { event: 'ping', payload: githubExample('ping'), deliveryId: 'd-ping' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ignored', reason: 'ping' })
    expect(ignoredLines()).toContainEqual(expect.objectContaining({ reason: 'ping', provider: 'github', delivery_id: 'd-ping' }))
  })

  it('ignores unsupported events, and comments on plain issues, with 200 and a reason', async () => {
    const star = await deliver(service.url, 'github', { event: 'star', payload: githubExample('star', 'created') })
    expect(star.status).toBe(200)
    expect(await star.json()).toEqual({ status: 'ignored', reason: 'unsupported_event' })

    const issue = githubExample('issue_comment', 'created', (p) => !(p.issue as { pull_request?: unknown }).pull_request)
    const comment = await deliver(service.url, 'github', { event: 'issue_comment', payload: issue })
    expect(await comment.json()).toEqual({ status: 'ignored', reason: 'not_a_pull_request' })

    // labeled / unlabeled are decoded (ignore.labels reads them); an assignment is still no news.
    const assigned = await deliver(service.url, 'github', { event: 'pull_request', payload: githubExample('pull_request', 'assigned') })
    expect(await assigned.json()).toEqual({ status: 'ignored', reason: 'unsupported_action' })

    const reasons = ignoredLines().map((e) => e.reason)
    expect(reasons).toEqual(['unsupported_event', 'not_a_pull_request', 'unsupported_action'])
    const withRepo = ignoredLines().find((e) => e.reason === 'unsupported_action')
    expect(withRepo).toMatchObject({ event: 'pull_request', repository: expect.stringContaining('/'), pr: expect.any(Number) })
  })

  it('ignores a repository without a mapping with reason no_mapping', async () => {
    const payload = githubExample('pull_request', 'opened')
    ;(payload.repository as { owner: { login: string } }).owner.login = 'someone-else'
    const res = await deliver(service.url, 'github', { event: 'pull_request', payload })
    expect(await res.json()).toEqual({ status: 'ignored', reason: 'no_mapping' })
    expect(slack.calls).toHaveLength(0)
  })

  it('never logs the secret, the Slack token or any part of a payload', async () => {
    const canary = 'CANARY-7f3a9c-payload-text'
    const payload = githubExample('pull_request', 'opened')
    ;(payload.pull_request as { title: string; body: string }).title = canary
    ;(payload.pull_request as { title: string; body: string }).body = canary
    await deliver(service.url, 'github', { event: 'pull_request', payload })
    await deliver(service.url, 'github', { event: 'pull_request', payload, secret: 'wrong' })
    await deliver(service.url, 'github', { event: 'star', payload: { canary } })
    await deliver(service.url, 'github', { event: 'pull_request', payload: `{"${canary}":` })
    await service.stop()
    const text = service.logs.join('\n')
    expect(service.logs.length).toBeGreaterThan(3)
    expect(text).not.toContain(canary)
    expect(text).not.toContain(TEST_SECRET)
    expect(text).not.toContain(TEST_SLACK_TOKEN)
    expect(text).not.toMatch(/sha256=[0-9a-f]{16}/)
  })
})
