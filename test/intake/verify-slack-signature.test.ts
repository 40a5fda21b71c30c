import { describe, expect, it } from 'vitest'
import { signSlackRequest, verifySlackSignature } from '../../src/intake/verify-slack-signature.ts'
import { signSlackBody } from '../helpers/slack-interaction.ts'

// Slack's worked example in "Verifying requests from Slack" (docs.slack.dev): secret, timestamp, body, signature.
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5'
const TIMESTAMP = '1531420618'
const BODY = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c'
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503'
const AT = Number(TIMESTAMP) * 1000
const request = (over: Partial<{ body: string; timestamp: string | null; signature: string | null }> = {}) => ({
  body: Buffer.from(over.body ?? BODY), timestamp: over.timestamp === undefined ? TIMESTAMP : over.timestamp,
  signature: over.signature === undefined ? SIGNATURE : over.signature,
})

describe('verifySlackSignature', () => {
  it('accepts Slack\'s documented example, and signs it the same way', () => {
    expect(verifySlackSignature(SECRET, request(), AT)).toBe('ok')
    expect(signSlackRequest(SECRET, TIMESTAMP, BODY)).toBe(SIGNATURE)
    // And so do the tests' own Slack requests (test/helpers/slack-interaction.ts), written apart from src/.
    expect(signSlackBody(SECRET, TIMESTAMP, BODY)).toBe(SIGNATURE)
  })

  it('accepts up to five minutes either side of the clock, and calls anything further stale', () => {
    expect(verifySlackSignature(SECRET, request(), AT + 300_000)).toBe('ok')
    expect(verifySlackSignature(SECRET, request(), AT - 300_000)).toBe('ok')
    expect(verifySlackSignature(SECRET, request(), AT + 301_000)).toBe('stale_timestamp')
    expect(verifySlackSignature(SECRET, request(), AT - 301_000)).toBe('stale_timestamp')
  })

  it.each([
    ['another secret', 'another-secret', request()],
    ['a changed body', SECRET, request({ body: `${BODY}&x=1` })],
    ['a changed timestamp (the timestamp is signed)', SECRET, request({ timestamp: '1531420619' })],
    ['no signature', SECRET, request({ signature: null })],
    ['no timestamp', SECRET, request({ timestamp: null })],
    ['a signature of another version', SECRET, request({ signature: SIGNATURE.replace('v0=', 'v1=') })],
    ['a truncated signature', SECRET, request({ signature: SIGNATURE.slice(0, -2) })],
    ['a timestamp that is not a number', SECRET, request({ timestamp: '1531420618.5' })],
    ['an empty secret', '', request()],
  ] as const)('refuses %s', (_what, secret, req) => {
    expect(verifySlackSignature(secret, req, AT)).toBe('bad_signature')
  })

  it('a stale request with a bad signature is a bad signature: staleness is only told to a genuine request', () => {
    expect(verifySlackSignature('another-secret', request(), AT + 3_600_000)).toBe('bad_signature')
  })
})
