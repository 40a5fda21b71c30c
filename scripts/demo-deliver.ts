import '../src/cli/require-supported-node.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import { githubExample } from '../test/helpers/github-examples.ts'
import { deliver } from '../test/helpers/signed-delivery.ts'

/**
 * `npm run demo:deliver [url]`: sends one pull request's story (opened, reviewed with a comment, closed
 * without merging) as three signed GitHub deliveries, built from GitHub's own example payloads, to a server
 * started with `npm run demo`. Each step has a fixed delivery id, as GitHub keeps the X-GitHub-Delivery of a
 * delivery it redelivers: run it twice and the second run shows the dedupe (answered, recorded once,
 * nothing new reaches Slack).
 */
const url = process.argv[2] ?? 'http://127.0.0.1:8080'
const secret = process.env.GITHUB_WEBHOOK_SECRET ?? 'demo-webhook-secret'

function retarget(payload: Record<string, unknown>): Record<string, unknown> {
  // The example payloads belong to Codertocat/Hello-World; the example config maps acme/web.
  const repository = payload.repository as { name: string; full_name: string; owner: { login: string } }
  repository.owner.login = 'acme'
  repository.name = 'web'
  repository.full_name = 'acme/web'
  return payload
}

const steps: Array<[string, Record<string, unknown>, string]> = [
  ['pull_request', githubExample('pull_request', 'opened'), '0d3e5a10-9c1f-11f1-8000-000000000001'],
  ['pull_request_review', githubExample('pull_request_review', 'submitted'), '0d3e5a10-9c1f-11f1-8000-000000000002'],
  ['pull_request', githubExample('pull_request', 'closed'), '0d3e5a10-9c1f-11f1-8000-000000000003'],
]
/** Why fetch failed, in its own words: undici hides it in the cause (ECONNREFUSED, ENOTFOUND, a bad port). */
function reason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  if (!(cause instanceof Error)) return String(cause)
  const code = (cause as { code?: unknown }).code
  return typeof code === 'string' ? code : cause.message
}

/**
 * A pull request's events come seconds apart, not all at once: the pause lets each change show on its own in
 * the other terminal (deliveries that arrive together are folded into one edit, docs/architecture.md).
 */
const GAP_MS = 500

for (const [index, [event, payload, deliveryId]] of steps.entries()) {
  if (index > 0) await sleep(GAP_MS)
  try {
    const res = await deliver(url, 'github', { event, payload: retarget(payload), secret, deliveryId })
    console.log(`${event}/${String(payload.action)} -> ${res.status} ${await res.text()}`)
  } catch (error) {
    console.error(`demo:deliver: no prherald answers at ${url} (${reason(error)}); start it first with npm run demo in another terminal, or pass its URL: npm run demo:deliver http://127.0.0.1:<port>`)
    process.exitCode = 1
    break
  }
}
