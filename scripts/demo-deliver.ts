import '../src/cli/require-supported-node.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import { githubExample } from '../test/helpers/github-examples.ts'
import { deliver } from '../test/helpers/signed-delivery.ts'
import { demoSecret } from './demo-secret.ts'

/**
 * `npm run demo:deliver [url]`: sends one pull request's story (opened, reviewed with a comment, closed
 * without merging) as three signed GitHub deliveries, built from GitHub's own example payloads, to a server
 * started with `npm run demo` or `npm run dev`, signed with the secret those use (scripts/demo-secret.ts).
 * Each step has a fixed delivery id, as GitHub keeps the X-GitHub-Delivery of a delivery it redelivers: run
 * it twice and the second run shows the dedupe (answered, recorded once, nothing new reaches Slack).
 */
const USAGE = `Usage: npm run demo:deliver [-- <url>]

Sends one pull request's story (opened, reviewed, closed) as three signed GitHub deliveries to <url>/webhook/github,
a server started with npm run demo or npm run dev (default http://127.0.0.1:8080; npm run dev prints its URL).
Signs with GITHUB_WEBHOOK_SECRET, else BITBUCKET_WEBHOOK_SECRET (environment, else the clone's .env), else the
demo's secret: the one those servers use.
`
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const unknown = args.find((arg) => arg.startsWith('-'))
if (unknown !== undefined || args.length > 1) {
  process.stderr.write(`demo:deliver: ${unknown === undefined ? 'give at most one URL' : `unknown option ${unknown}`}; see npm run demo:deliver -- --help\n`)
  process.exit(2)
}
const url = (args[0] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')
const { secret, from } = demoSecret()

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

/** Why an answer means the story cannot go on, or undefined for prherald's own answer to a delivery. */
function refusal(status: number, contentType: string): string | undefined {
  if (status === 401) {
    return `the server at ${url} refused the signature (401): it checks another webhook secret than the one used here (${from}); ` +
      'run demo:deliver from the clone the server runs in (npm run demo or npm run dev), or set GITHUB_WEBHOOK_SECRET to its secret'
  }
  if (status === 404 || !contentType.includes('application/json')) {
    return `${url} answered ${status} to POST /webhook/github: not a prherald that takes GitHub deliveries; ` +
      'pass the URL npm run demo or npm run dev printed: npm run demo:deliver http://127.0.0.1:<port>'
  }
  return undefined
}

/**
 * A pull request's events come seconds apart, not all at once: the pause lets each change show on its own in
 * the other terminal (deliveries that arrive together are folded into one edit, docs/architecture.md).
 */
const GAP_MS = 500

for (const [index, [event, payload, deliveryId]] of steps.entries()) {
  if (index > 0) await sleep(GAP_MS)
  let res: Response
  try {
    res = await deliver(url, 'github', { event, payload: retarget(payload), secret, deliveryId })
  } catch (error) {
    console.error(`demo:deliver: no prherald answers at ${url} (${reason(error)}); start it first with npm run demo in another terminal, or pass its URL: npm run demo:deliver http://127.0.0.1:<port>`)
    process.exitCode = 1
    break
  }
  const text = await res.text()
  const refused = refusal(res.status, res.headers.get('content-type') ?? '')
  if (refused) {
    console.error(`demo:deliver: ${refused}`)
    process.exitCode = 1
    break
  }
  console.log(`${event}/${String(payload.action)} -> ${res.status} ${text}`)
}
