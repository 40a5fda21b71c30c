import { githubExample } from '../test/helpers/github-examples.ts'
import { deliver } from '../test/helpers/signed-delivery.ts'

/**
 * `npm run demo:deliver [url]`: sends a pull request's life (opened, approved, merged) as signed GitHub
 * deliveries, built from GitHub's own example payloads, to a server started with `npm run demo`.
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

const steps: Array<[string, Record<string, unknown>]> = [
  ['pull_request', githubExample('pull_request', 'opened')],
  ['pull_request_review', githubExample('pull_request_review', 'submitted')],
  ['pull_request', githubExample('pull_request', 'closed')],
]
for (const [event, payload] of steps) {
  const res = await deliver(url, 'github', { event, payload: retarget(payload), secret })
  console.log(`${event}/${String(payload.action)} -> ${res.status} ${await res.text()}`)
}
