import { describe, expect, it } from 'vitest'
import { signedDelivery } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { rawRequest } from '../helpers/raw-request.ts'
import { useGithubService } from '../helpers/use-github-service.ts'

/**
 * Issue 30.4: routes match the raw path. A proxy forwards `/webhook/…` as it came (nginx's `location /webhook/`),
 * and h3 would route `/webhook/..\metrics` to `/metrics`; every such path is refused before any route, sent
 * byte for byte on a socket (fetch would normalise it first).
 */
const t = useGithubService(() => ({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET }))

/** One request with `path` exactly as written on the wire. */
const raw = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  rawRequest(t.service.url, [`${method} ${path} HTTP/1.1`, 'host: prherald.example.com', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ''].join('\r\n'), body)

describe('a path that means another route once normalised', () => {
  it('the plain routes answer, so what follows is not refused for another reason', async () => {
    expect((await raw('GET', '/metrics')).body).toMatch(/prherald_/)
    expect((await raw('GET', '/healthz')).status).toBe(200)
    expect((await raw('GET', '/readyz')).status).toBe(200)
  })

  it.each([
    '/webhook/..\\metrics',
    '/webhook/..\\healthz',
    '/webhook/x/..\\..\\readyz',
    '/webhook/%2e%2e/healthz',
    '/webhook/%2E%2E/metrics',
    '/webhook/.%2e/metrics',
    '/webhook/..%5cmetrics',
    '/webhook/..%5Creadyz',
    '/webhook/github/../../metrics',
    '/webhook/slack/..\\github',
    '/metrics\\',
  ])('GET %s is refused before any route', async (path) => {
    const answer = await raw('GET', path)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'bad_path' })
    expect(answer.body).not.toMatch(/prherald_|"status"/)
  })

  it('a signed delivery on a path that resolves to the webhook route is refused too, and on the route itself taken', async () => {
    const { body, headers } = signedDelivery('github', { event: 'pull_request', payload: pullRequest('opened', 7), deliveryId: 'raw-1' })
    expect((await raw('POST', '/webhook/slack/interactions/..\\..\\github', headers, body)).status).toBe(400)
    expect((await raw('POST', '/webhook/x/%2e%2e/github', headers, body)).status).toBe(400)
    const taken = await raw('POST', '/webhook/github?x=..', headers, body)
    expect(taken.status).toBe(200)
  })
})
