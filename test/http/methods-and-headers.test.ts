import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** 11.9: a wrong method is 405 with Allow; 16.7: a missing event header is named. */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'bitbucket', mappings: { acme: { '*': { channel: 'C0000000001' } } } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url }))
})
afterEach(async () => {
  await service.stop()
  await slack.close()
  dir.remove()
})

describe('method answers', () => {
  it.each([
    ['GET', '/webhook/bitbucket', 'POST'],
    ['PUT', '/webhook/bitbucket', 'POST'],
    ['DELETE', '/webhook/bitbucket', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/healthz', 'GET, HEAD'],
    ['POST', '/readyz', 'GET, HEAD'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const res = await fetch(`${service.url}${path}`, { method })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe(allow)
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' })
  })

  it('answers HEAD on /healthz and /readyz, and keeps 404 for paths that do not exist', async () => {
    expect((await fetch(`${service.url}/healthz`, { method: 'HEAD' })).status).toBe(200)
    expect((await fetch(`${service.url}/readyz`, { method: 'HEAD' })).status).toBe(200)
    expect((await fetch(`${service.url}/webhook/github`, { method: 'POST' })).status).toBe(404)
    expect((await fetch(`${service.url}/nope`)).status).toBe(404)
  })
})

describe('error bodies', () => {
  it('have one shape, { error, message }, for an unknown route as for every other error, and no stack', async () => {
    const answers = await Promise.all([
      fetch(`${service.url}/nope?x=1`),
      fetch(`${service.url}/webhook/github`, { method: 'POST', body: '{}' }),
      fetch(`${service.url}/healthz`, { method: 'POST' }),
      deliver(service.url, 'bitbucket', { event: 'pullrequest:created', payload: {}, deliveryId: 'bad-sig-1', secret: 'not-the-secret' }),
    ])
    const bodies = await Promise.all(answers.map(async (res) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.json() as Record<string, unknown> })))
    expect(bodies.map((b) => b.status)).toEqual([404, 404, 405, 401])
    for (const { type, body } of bodies) {
      expect(type).toMatch(/^application\/json/)
      expect(Object.keys(body).sort()).toEqual(['error', 'message'])
      expect(JSON.stringify(body)).not.toMatch(/\bat \S+:\d+|stack/)
    }
    expect(bodies[0]!.body).toEqual({ error: 'not_found', message: 'no route for GET /nope' })
    expect(bodies[1]!.body).toEqual({ error: 'not_found', message: 'no route for POST /webhook/github' })
  })
})

describe('a signed Bitbucket delivery without X-Event-Key', () => {
  it('is ignored as before, and both the log line and the answer name the missing header', async () => {
    const payload = { repository: { full_name: 'acme/api' }, pullrequest: { id: 1 } }
    const res = await deliver(service.url, 'bitbucket', { event: 'pullrequest:created', payload, deliveryId: 'no-key-1', headers: { 'x-event-key': undefined } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ignored', reason: 'unsupported_event', missing_header: 'X-Event-Key' })
    expect(service.entries().filter((e) => e.msg === 'webhook delivery without its event header')).toEqual([expect.objectContaining({
      level: 'warn', header: 'X-Event-Key', provider: 'bitbucket', delivery_id: 'no-key-1', fix: expect.stringContaining('proxy'),
    })])
  })
})
