import { afterEach, expect, it } from 'vitest'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * The rule for a feature turned on without all its parts (docs/operations.md): the server starts, warns once
 * per missing part in doctor's own words with its fix, and /readyz says degraded, naming each part. Socket
 * Mode with a token Slack refuses is degraded too, with Slack's reason, not "ready" with a socket that never opens.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald({ config: { mappings: { Codertocat: { '*': { channel: CHANNEL } } } } })
afterEach(async () => { await h.stop() })

const readyz = async () => {
  const res = await fetch(`${h.service!.url}/readyz`)
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

it('talk back on with no token key, no OAuth client and no way for Slack\'s requests: starts, warns each in doctor\'s words, /readyz degraded naming each', async () => {
  writeConfig(h.dir.path, { git_provider: 'github', slack: { talk_back: { thread_replies: 'linked' } }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  await h.start(h.env({ PRHERALD_PUBLIC_URL: 'https://prherald.example.com' }))
  const warned = h.service!.entries().filter((e) => e.msg === 'talk-back part missing; starting without it')
  // The same reasons prherald-doctor prints as FAIL lines (test/cli/doctor-talk-back.test.ts).
  expect(warned.map((e) => [e.check, e.target, e.reason])).toEqual([
    ['oauth client', 'GITHUB_OAUTH_CLIENT_ID', 'GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET are unset: nobody can link a GitHub account, so reviews and linked replies cannot be made'],
    ['token key', 'PRHERALD_TOKEN_KEY', 'not set: people\'s tokens cannot be sealed, so nobody can link'],
    ['slack requests', 'SLACK_SIGNING_SECRET', 'unset and no Socket Mode: Slack\'s events (thread replies) and clicks (reviews) cannot reach prherald'],
  ])
  for (const e of warned) expect(String(e.fix)).not.toBe('undefined')
  const ready = await readyz()
  expect(ready.status).toBe(200)
  expect(ready.body).toMatchObject({ status: 'degraded', database: 'ok' })
  expect((ready.body.missing as Array<{ check: string }>).map((m) => m.check)).toEqual(['oauth client', 'token key', 'slack requests'])
})

it('talk back off: nothing is missing, /readyz is ready', async () => {
  await h.start()
  expect((await readyz()).body).toMatchObject({ status: 'ready' })
  expect(h.service!.entries().filter((e) => e.msg === 'talk-back part missing; starting without it')).toEqual([])
})

it('a well-formed app-level token Slack refuses: /readyz degraded with Slack\'s reason and the fix, until a socket opens', async () => {
  writeConfig(h.dir.path, { git_provider: 'github', slack: { socket_mode: true }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  h.slack.appToken = 'xapp-1-A0PRHERALD-1-right'
  await h.start(h.env({ SLACK_APP_TOKEN: 'xapp-1-A0PRHERALD-1-wrong' }), { socketTimeouts: { backoffMs: () => 50 } })
  await waitFor('a refused connection', () => h.slack.calls.filter((c) => c.method === 'apps.connections.open').length >= 1)
  await waitFor('the refusal shown', async () => (await readyz()).body.slack_socket_refused === 'invalid_auth')
  const ready = await readyz()
  expect(ready.body).toMatchObject({ status: 'degraded', slack_socket: 'connecting', slack_socket_refused: 'invalid_auth' })
  expect(String(ready.body.slack_socket_fix)).toContain('SLACK_APP_TOKEN')
})
