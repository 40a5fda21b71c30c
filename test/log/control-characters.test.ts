import { connect } from 'node:net'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 30.6, from outside: an unsigned delivery whose X-GitHub-Delivery holds byte 0x9B (U+009B, a
 * one-character CSI to many terminals) is logged with it escaped. Node's parser refuses C0 in a header, but
 * takes bytes 0x80-0xFF as latin-1; a raw socket sends them as they are.
 */
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

it('a C1 control character in an unauthenticated header is escaped in the log line', async () => {
  const body = '{}'
  const head = Buffer.concat([
    Buffer.from('POST /webhook/github HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\n'),
    Buffer.from('x-github-event: pull_request\r\nx-hub-signature-256: sha256=00\r\nx-github-delivery: d1'),
    Buffer.from([0x9b]), Buffer.from('31mEVIL\r\n'),
    Buffer.from(`content-length: ${body.length}\r\n\r\n${body}`),
  ])
  const { port } = new URL(service.url)
  const socket = connect(Number(port), '127.0.0.1')
  socket.end(head)
  const chunks: Buffer[] = []
  for await (const chunk of socket) chunks.push(chunk as Buffer)
  expect(Buffer.concat(chunks).toString('latin1')).toMatch(/^HTTP\/1\.1 401/)
  await waitFor('the rejection\'s log line', () => service.logs.some((l) => l.includes('31mEVIL')))
  const line = service.logs.find((l) => l.includes('31mEVIL'))!
  expect(line).not.toMatch(/[\u0080-\u009f]/)
  expect(line).toContain('\\u009b31mEVIL')
})
