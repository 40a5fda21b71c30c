import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import Database from 'better-sqlite3'
import { join } from 'node:path'
/** The hosts these cases cover. */
type Provider = 'github' | 'bitbucket'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { signedDelivery, signWebhookBody, TEST_SECRET } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { writeCalls } from '../faults/pr-messages.ts'
import { headerValue, mutatedPayload, mutatedText, realOf, SEEDS } from './arbitraries.ts'

/**
 * The HTTP intake of a real, in-process prherald (one per provider) over real HTTP, with random and mutated
 * bodies, headers and signatures. Never a 5xx, never a crash, and without a valid signature nothing is
 * stored and Slack is never called.
 */
export const UNSIGNED_RUNS = 300
export const SIGNED_RUNS = 300
const ALLOWED = [200, 400, 401, 404, 405, 413, 415]
const SIGNATURE_HEADER = { github: 'x-hub-signature-256', bitbucket: 'x-hub-signature' } as const
const NOT_RANDOM = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer',
  ...Object.values(SIGNATURE_HEADER)])

const services = new Map<Provider, { dir: ReturnType<typeof makeTempDir>; service: TestService }>()
let slack: FakeSlack

beforeAll(async () => {
  slack = await startFakeSlack({ anyChannel: true })
  for (const provider of ['github', 'bitbucket'] as const) {
    const dir = makeTempDir()
    writeConfig(dir.path, {
      git_provider: provider,
      mappings: provider === 'github' ? { Codertocat: { '*': { channel: 'C0000000001' } } } : { acme: { '*': { channel: 'C0000000002' } } },
    })
    services.set(provider, { dir, service: await startPrherald(dir.path, testEnv(dir.path, provider, { SLACK_API_URL: slack.url })) })
  }
})
afterAll(async () => {
  for (const { dir, service } of services.values()) {
    await service.stop()
    dir.remove()
  }
  await slack.close()
})

interface Case {
  provider: Provider
  method: string
  path: string
  headers: Record<string, string>
  body: string | Uint8Array | undefined
}

const provider = fc.constantFrom<Provider>('github', 'bitbucket')

/** A body: a mutated real payload, a text mutation of one (often not JSON), random bytes, or nothing. */
const bodyFor = (p: Provider) => fc.constantFrom(...realOf(p)).chain((real) => {
  const text = JSON.stringify(real.payload)
  return fc.record({
    event: fc.oneof({ weight: 5, arbitrary: fc.constant(real.event) }, headerValue),
    body: fc.oneof(
      { weight: 4, arbitrary: mutatedPayload(real.payload).map((p) => JSON.stringify(p) ?? 'null') },
      { weight: 2, arbitrary: mutatedText(text) },
      { weight: 1, arbitrary: fc.constant(text) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
      { weight: 1, arbitrary: fc.constant('') },
    ),
  })
})

/** The delivery headers the provider sends (signature aside), with some dropped, changed or added. */
const headersFor = (p: Provider, event: string) => fc.record({
  drop: fc.subarray(['content-type', 'user-agent', p === 'github' ? 'x-github-delivery' : 'x-request-uuid', p === 'github' ? 'x-github-event' : 'x-event-key']),
  extra: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((n) => !NOT_RANDOM.has(n)), headerValue, { maxKeys: 4 }),
  contentType: fc.option(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', ''), { freq: 4 }),
}).map(({ drop, extra, contentType }) => {
  const { headers } = signedDelivery(p, { event, payload: '' })
  delete headers[SIGNATURE_HEADER[p]]
  for (const name of drop) delete headers[name]
  if (contentType !== null) headers['content-type'] = contentType
  return { ...headers, ...extra }
})

const bodyText = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body))

/** Every way of not carrying a valid signature for exactly these bytes. */
const badSignature = (p: Provider, body: string | Uint8Array) => fc.oneof(
  fc.constant<Record<string, string>>({}),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => ({ [SIGNATURE_HEADER[p]]: `sha256=${hex}` })),
  headerValue.map((v) => ({ [SIGNATURE_HEADER[p]]: v })),
  fc.constant({ [SIGNATURE_HEADER[p]]: signWebhookBody(TEST_SECRET, Buffer.concat([Buffer.from(bodyText(body)), Buffer.from(' ')])) }),
  fc.constant({ [SIGNATURE_HEADER[p]]: signWebhookBody(`${TEST_SECRET}x`, bodyText(body)) }),
  fc.constant({ [SIGNATURE_HEADER[p]]: signWebhookBody(TEST_SECRET, bodyText(body)).replace('sha256=', 'sha1=') }),
  // A valid signature, but in the header of the other provider.
  fc.constant({ [SIGNATURE_HEADER[p === 'github' ? 'bitbucket' : 'github']]: signWebhookBody(TEST_SECRET, bodyText(body)) }),
)

const unsignedCase: fc.Arbitrary<Case> = provider.chain((p) => bodyFor(p).chain(({ event, body }) => fc.record({
  provider: fc.constant(p),
  method: fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')),
  path: fc.oneof(
    { weight: 6, arbitrary: fc.constant(`/webhook/${p}`) },
    fc.constantFrom('/webhook/github', '/webhook/bitbucket', '/webhook/', '/healthz', '/webhook/github/', '/WEBHOOK/github'),
    fc.stringMatching(/^\/[a-zA-Z0-9%._~/-]{0,30}$/),
  ),
  headers: fc.tuple(headersFor(p, event), badSignature(p, body)).map(([h, s]) => ({ ...h, ...s })),
  body: fc.constant(body),
})))

const signedCase: fc.Arbitrary<Case> = provider.chain((p) => bodyFor(p).chain(({ event, body }) => headersFor(p, event).map((headers) => ({
  provider: p, method: 'POST', path: `/webhook/${p}`, body,
  headers: { ...headers, [SIGNATURE_HEADER[p]]: signWebhookBody(TEST_SECRET, bodyText(body)) },
}))))

async function send(c: Case): Promise<{ status: number; json: unknown }> {
  const { service } = services.get(c.provider)!
  const withBody = c.method !== 'GET' && c.method !== 'HEAD'
  const res = await fetch(`${service.url}${c.path}`, { method: c.method, headers: c.headers, body: withBody ? c.body : undefined })
  const text = await res.text()
  let json: unknown
  try { json = JSON.parse(text) } catch { json = text }
  return { status: res.status, json }
}

function storedDeliveries(p: Provider): number {
  const db = new Database(join(services.get(p)!.dir.path, 'prherald.db'), { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM deliveries').get() as { n: number }).n
  } finally {
    db.close()
  }
}

async function expectHealthy(): Promise<void> {
  for (const { service } of services.values()) {
    expect(await service.settle(20_000)).toBe(true)
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
    const bad = service.entries().filter((e) => e.level === 'error' && e.msg !== 'slack rejected the change; dropping it for this channel')
    expect(bad, JSON.stringify(bad.slice(0, 3))).toHaveLength(0)
  }
}

describe('HTTP intake under fuzzing', () => {
  it('without a valid signature: never a 5xx, never stored, never a Slack call', async () => {
    const statuses = new Map<number, number>()
    await fc.assert(fc.asyncProperty(unsignedCase, async (c) => {
      const { status } = await send(c)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      expect(ALLOWED, `${c.method} ${c.path}`).toContain(status)
      // Only the health route answers 200 here; no webhook route accepts or ignores an unsigned delivery.
      if (!(c.path === '/healthz' && (c.method === 'GET' || c.method === 'HEAD'))) expect(status, `${c.method} ${c.path}`).not.toBe(200)
    }), { numRuns: UNSIGNED_RUNS, seed: SEEDS.intakeUnsigned })
    console.log(`intake/unsigned: ${UNSIGNED_RUNS} cases, statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    await expectHealthy()
    expect(writeCalls(slack)).toHaveLength(0)
    expect(storedDeliveries('github') + storedDeliveries('bitbucket')).toBe(0)
    expect(statuses.get(401)).toBeGreaterThan(UNSIGNED_RUNS / 4)
  }, 120_000) // hundreds of real HTTP requests: about 20 s alone, past 30 s on a machine shared by a full test run

  it('validly signed, mutated deliveries: 200 or 400, never a 5xx, and every accepted one is applied', async () => {
    const statuses = new Map<number, number>()
    let accepted = 0
    await fc.assert(fc.asyncProperty(signedCase, async (c) => {
      const { status, json } = await send(c)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      expect([200, 400]).toContain(status)
      let parsed = true
      try { JSON.parse(Buffer.from(bodyText(c.body ?? '')).toString('utf8')) } catch { parsed = false }
      // 400 exactly when the signed bytes are not JSON.
      expect(status === 400, `status ${status} for ${parsed ? 'JSON' : 'non-JSON'}`).toBe(!parsed)
      if (status === 200) {
        expect(['accepted', 'ignored']).toContain((json as { status: string }).status)
        if ((json as { status: string }).status === 'accepted') accepted++
      }
    }), { numRuns: SIGNED_RUNS, seed: SEEDS.intakeSigned })
    console.log(`intake/signed: ${SIGNED_RUNS} cases, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${accepted} accepted`)
    await expectHealthy()
    expect(accepted).toBeGreaterThan(0)
    for (const { service } of services.values()) {
      expect(service.entries().filter((e) => String(e.msg).startsWith('delivery failed'))).toHaveLength(0)
    }
  }, 120_000)
})
