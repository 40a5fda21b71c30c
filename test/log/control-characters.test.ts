import { expect, it } from 'vitest'
import { rawRequest } from '../helpers/raw-request.ts'
import { useGithubService } from '../helpers/use-github-service.ts'
import { waitFor } from '../helpers/start-prherald.ts'

/**
 * Issue 30.6, from outside: an unsigned delivery whose X-GitHub-Delivery holds byte 0x9B (U+009B, a
 * one-character CSI to many terminals) is logged with it escaped. Node's parser refuses C0 in a header, but
 * takes bytes 0x80-0xFF as latin-1; a raw socket sends them as they are.
 */
const t = useGithubService()

it('a C1 control character in an unauthenticated header is escaped in the log line', async () => {
  const head = Buffer.concat([
    Buffer.from('POST /webhook/github HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n'),
    Buffer.from('x-github-event: pull_request\r\nx-hub-signature-256: sha256=00\r\nx-github-delivery: d1'),
    Buffer.from([0x9b]), Buffer.from('31mEVIL\r\n'),
  ])
  expect((await rawRequest(t.service.url, head, '{}')).status).toBe(401)
  await waitFor('the rejection\'s log line', () => t.service.logs.some((l) => l.includes('31mEVIL')))
  const line = t.service.logs.find((l) => l.includes('31mEVIL'))!
  expect(line).not.toMatch(/[\u0080-\u009f]/)
  expect(line).toContain('\\u009b31mEVIL')
})
