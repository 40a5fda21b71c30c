import { describe, expect, it } from 'vitest'
import { signBody, verifySignature } from '../../src/hosts/verify-signature.ts'
import { signWebhookBody } from '../helpers/signed-delivery.ts'

/**
 * The hosts' own published examples, so neither the product's signer nor the tests' (test/helpers/
 * signed-delivery.ts, written apart) can agree with the other on a wrong HMAC.
 */
const EXAMPLES = [
  {
    // GitHub, "Validating webhook deliveries", "Testing the webhook payload validation": "You can use the
    // following secret and payload values to verify that your implementation is correct: secret: "It's a Secret
    // to Everybody", payload: "Hello, World!" ... X-Hub-Signature-256: sha256=757107ea…"
    // (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries).
    host: 'GitHub (X-Hub-Signature-256)',
    secret: "It's a Secret to Everybody",
    payload: 'Hello, World!',
    signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  },
  {
    // Bitbucket Cloud signs the same way in X-Hub-Signature ("sha256=<hex>", HMAC-SHA256 of the raw body with
    // the webhook's secret: "Manage webhooks", https://support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/).
    // Atlassian's knowledge-base article "Verify webhook signature with example Python code in Bitbucket Cloud"
    // says "We have included "Hello World" examples in the webhook documentation"; the stored copy of that page
    // ends before its example, so the vector here is the one Atlassian publishes for the same X-Hub-Signature
    // scheme on its Jira Cloud webhooks page (https://developer.atlassian.com/cloud/jira/platform/webhooks/):
    // secret "It's a Secret to Everybody", payload "Hello World!", sha256=a4771c39…, which other
    // Bitbucket receivers also test against as Bitbucket's.
    host: 'Bitbucket Cloud (X-Hub-Signature)',
    secret: "It's a Secret to Everybody",
    payload: 'Hello World!',
    signature: 'sha256=a4771c39fbe90f317c7824e83ddef3caae9cb3d976c214ace1f2937e133263c9',
  },
] as const

describe.each(EXAMPLES)('$host published example', ({ secret, payload, signature }) => {
  it('the verifier accepts it, for its bytes only and its secret only', () => {
    const body = Buffer.from(payload)
    expect(verifySignature([secret], body, signature)).toBe(true)
    expect(verifySignature(['another secret', secret], body, signature)).toBe(true)
    expect(verifySignature(['another secret'], body, signature)).toBe(false)
    expect(verifySignature([secret], Buffer.from(`${payload} `), signature)).toBe(false)
    expect(verifySignature([secret], body, signature.replace('sha256=', 'sha1='))).toBe(false)
  })

  it('the product signs it so (prherald-smoke), and so do the tests\' deliveries', () => {
    expect(signBody(secret, payload)).toBe(signature)
    expect(signWebhookBody(secret, payload)).toBe(signature)
  })
})
