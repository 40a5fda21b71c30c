import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { signedDelivery, TEST_SECRET } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** 11.5: an answer of 500 or above always leaves one log line, whatever threw. */
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

describe('every 5xx is logged', () => {
  it('logs an error that is not a PrheraldError with its kind, message and delivery id, and nothing of the request', async () => {
    // Break the store from outside, as a damaged or hand-edited database would: SQLite's own error, not ours.
    const other = new Database(join(dir.path, 'prherald.db'))
    other.exec('DROP TABLE deliveries')
    other.close()

    const { body, headers } = signedDelivery('github', { event: 'pull_request', payload: githubExample('pull_request', 'opened'), deliveryId: 'broken-store-1' })
    const res = await fetch(`${service.url}/webhook/github`, { method: 'POST', headers, body })
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'internal', message: 'internal error; see the server log' })

    const lines = service.entries().filter((e) => e.level === 'error')
    expect(lines).toEqual([expect.objectContaining({
      msg: 'webhook delivery failed', status: 500, kind: 'SqliteError', delivery_id: 'broken-store-1', provider: 'github', event: 'pull_request',
      error: expect.stringContaining('no such table: deliveries'),
    })])
    const text = service.logs.join('\n')
    expect(text).not.toContain(headers['x-hub-signature-256']!)
    expect(text).not.toContain(TEST_SECRET)
    expect(text).not.toContain('Hello-World') // nothing of the payload
  })
})
