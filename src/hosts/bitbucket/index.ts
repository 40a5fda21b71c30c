import { bitbucketRequestReviewers } from './request-reviewers.ts'
import type { GitHost, HostApi } from '../contract.ts'
import { runWaitingOut } from '../host-rate-gate.ts'
import { readPullRequestWith } from '../read-pull-request.ts'
import { smokeRequest } from '../smoke-delivery.ts'
import { bodyDigestId, signBody, verifySignature } from '../verify-signature.ts'
import { cachingOwnerHooks } from '../webhooks.ts'
import { bitbucketReadFile } from './read-file.ts'
import { bitbucketChangedFiles } from './changed-files.ts'
import { createBitbucketClient } from './client.ts'
import { bitbucketPersonApi, bitbucketTalkBack } from './talk-back.ts'
import { basicAuth } from '../talk-back-http.ts'
import { BITBUCKET_REQUIRED_EVENTS } from './events.ts'
import { decodeBitbucket } from './decode.ts'
import { bitbucketSmokePayload } from './smoke.ts'
import { bitbucketWebhookSteps } from './webhook-steps.ts'
import { bitbucketWebhookApi } from './webhooks.ts'

/** Atlassian account ids: `557058:uuid`, or the older 24-hex form. */
const ACCOUNT_ID = /^(?:\d+:[0-9A-Za-z-]+|[0-9a-f]{24})$/i

const headers = { event: 'X-Event-Key', delivery: 'X-Request-UUID', auth: 'X-Hub-Signature' } as const


function connect(token: string, authEmail: string | undefined, apiUrl: string): HostApi {
  const client = createBitbucketClient({ baseUrl: apiUrl, token, authEmail })
  return {
    webhooks: cachingOwnerHooks(bitbucketWebhookApi(client)),
    changedFiles: bitbucketChangedFiles(client),
    readFile: bitbucketReadFile(client),
    requestReviewers: bitbucketRequestReviewers(client),
    // Comments as the token's account (an access token's bot, or the API token's person); needs pullrequest:write.
    comments: bitbucketPersonApi(apiUrl, authEmail ? basicAuth(authEmail, token) : `Bearer ${token}`),
    reconcile: (gate, clock) => ({
      // A 429 is waited out (its Retry-After) through the gate.
      readPullRequest: readPullRequestWith(async ({ owner, repo, number }) => {
        const path = `/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pullrequests/${number}`
        const data = await runWaitingOut(gate, clock, () => client.get<{ author?: unknown }>(path))
        return {
          what: `GET ${path}`,
          decoded: decodeBitbucket('pullrequest:updated', 'reconcile', { pullrequest: data, repository: { full_name: `${owner}/${repo}` }, actor: data.author }),
        }
      }),
    }),
  }
}

export const bitbucket: GitHost = {
  id: 'bitbucket',
  words: { name: 'Bitbucket', product: 'Bitbucket Cloud', pullRequest: 'pull request', reference: 'PR #', owner: 'workspace', repositoryExample: 'workspace/repository-slug' },
  nestedOwners: false,
  variables: { secret: 'BITBUCKET_WEBHOOK_SECRET', token: 'BITBUCKET_TOKEN', apiUrl: 'BITBUCKET_API_URL', extra: ['BITBUCKET_AUTH_EMAIL'],
    extraHelp: { BITBUCKET_AUTH_EMAIL: 'with a scoped API token: the Atlassian account email BITBUCKET_TOKEN is sent with' } },
  defaultApiUrl: 'https://api.bitbucket.org/2.0',
  delivery: {
    headers,
    authenticate: (secrets, given, body) => verifySignature(secrets, body, given.get(headers.auth)),
    eventName: (given) => given.get(headers.event)?.trim() ?? '',
    deliveryId: (given, body) => given.get(headers.delivery)?.trim() || bodyDigestId(body),
    decode: decodeBitbucket,
    extraHeaders: { 'x-attempt-number': '1' },
  },
  webhook: {
    required: BITBUCKET_REQUIRED_EVENTS,
    optional: [],
    sendsEverything: () => false,
    setupFix: (target) => `add the webhook in the repository's settings; prherald-config create-webhook ${target} prints the exact steps`,
    eventsFix: (target) => `edit the webhook and tick those triggers (prherald-config create-webhook ${target} lists them all)`,
    // prherald prints the steps instead (manualSteps); said for completeness.
    createAccess: 'admin rights on the repository, by hand in Repository settings → Webhooks',
    ownerHookAccess: 'BITBUCKET_TOKEN must be able to read workspace webhooks (a workspace access token with the webhook scope, or an API token of a workspace admin)',
    manualSteps: bitbucketWebhookSteps,
  },
  people: {
    keyOf: (actor) => actor.accountId ?? actor.login,
    caseInsensitive: false,
    keyDescription: 'Bitbucket account ids',
    // `teams:` here names Slack user groups only (assign: reads their members back through users:).
    teamDescription: 'team names for assign:, each a Slack user group',
    teamReviewRequests: false,
    emailLookup: false,
    // A key that cannot be an account id is almost certainly a nickname or display name, which would silently never match.
    keyProblem: (key) => ACCOUNT_ID.test(key)
      ? undefined
      : `"${key}" is not an Atlassian account id; Bitbucket users are keyed by account id (e.g. "557058:0b1c2d3e-…", quoted), not by nickname, which is not unique: the workspace's members list shows each one (docs/bitbucket.md#people)`,
  },
  // Bitbucket has no fixed identity for the hosted bots, so it has no built-ins.
  dependencyBots: [],
  readAccess(env) {
    // Read verbatim (no trimming): Bitbucket compares it byte for byte, and docs/bitbucket.md says so.
    const authEmail = env.BITBUCKET_AUTH_EMAIL || undefined
    return {
      token: env.BITBUCKET_TOKEN || undefined,
      extra: { BITBUCKET_AUTH_EMAIL: authEmail },
      scheme: authEmail === undefined ? 'unset: Bearer with an access token' : 'set: HTTP Basic with a scoped API token',
    }
  },
  connect: (access, apiUrl) => (access.token === undefined ? undefined : connect(access.token, access.extra.BITBUCKET_AUTH_EMAIL, apiUrl)),
  smokeDelivery(run, step, secret) {
    const { event, payload } = bitbucketSmokePayload(run, step, new Date().toISOString())
    return smokeRequest(bitbucket.delivery, event, payload, (body) => signBody(secret, body))
  },
  talkBack: bitbucketTalkBack,
  // "Set up and use code owners": "Create the CODEOWNERS file in a directory called .bitbucket at the root of
  // your repository"; gitignore-like without `\#`, `!` and `[ ]`; "Comments … can be at the start of line or
  // inline". Bitbucket reads it on the target branch, as prherald does.
  codeOwners: {
    locations: ['.bitbucket/CODEOWNERS'],
    syntax: { sections: false, escapedHash: false, negation: false, inlineComments: true },
    // read-file.ts: its src API takes "branch names that don't include the slash character".
    cannot: 'a target branch whose name holds a / (release/2.4) cannot be read through its src API: such pull requests go to the entry\'s own channels',
  },
}
