import type { GitHost, HostAccess, HostApi } from '../contract.ts'
import { readPullRequestWith } from '../read-pull-request.ts'
import { smokeRequest } from '../smoke-delivery.ts'
import { bodyDigestId, signBody, verifySignature } from '../verify-signature.ts'
import { APP_VARIABLE_HELP, APP_VARIABLES, isGithubApp, readGithubAccess } from './app-credentials.ts'
import { githubOwnComments } from './own-comments.ts'
import { createGithubClient, githubCall, type GithubClientOptions } from './client.ts'
import { githubReadFile, githubTeamMembers } from './read-file.ts'
import { githubChangedFiles } from './changed-files.ts'
import { GITHUB_OPTIONAL_EVENTS, GITHUB_REQUIRED_EVENTS } from './events.ts'
import { CHECK_EVENTS, decodeGithubCheck } from './decode-check.ts'
import { decodeGithub } from './decode.ts'
import { missedDeliveries } from './missed-deliveries.ts'
import { githubRequests } from './requests.ts'
import { githubSmokePayload } from './smoke.ts'
import { githubWebhookApi, upsertGithubWebhook } from './webhooks.ts'
import { cachingOwnerHooks } from '../webhooks.ts'
import { githubTalkBack } from './talk-back.ts'
import { githubRequestReviewers } from './request-reviewers.ts'

const headers = { event: 'X-GitHub-Event', delivery: 'X-GitHub-Delivery', auth: 'X-Hub-Signature-256' } as const


type Auth = Pick<GithubClientOptions, 'token' | 'app'>

function authOf(access: HostAccess): Auth | undefined {
  if (isGithubApp(access.other)) return { app: access.other }
  return access.token === undefined ? undefined : { token: access.token }
}

type AppAuthOf = { permissions(owner: string): Promise<Record<string, string>> }

/** A comment on a pull request is an issue comment: either permission at write lets the app make it (as <app>[bot]). */
function commentAccessOf(granted: Record<string, string>): { granted: boolean; says: string } {
  const has = (name: string) => granted[name] ?? 'none'
  const says = `the installation has pull_requests: ${has('pull_requests')}, issues: ${has('issues')}`
  return { granted: granted.pull_requests === 'write' || granted.issues === 'write', says }
}

/** A classic token names its scopes in every answer; a fine-grained one does not, and its permissions cannot be read. */
function tokenCommentAccess(header: string | undefined): { granted: boolean | undefined; says: string } {
  if (header === undefined) return { granted: undefined, says: 'GitHub does not tell a fine-grained token\'s permissions' }
  const scopes = header.split(',').map((s) => s.trim()).filter(Boolean)
  return { granted: scopes.includes('repo'), says: `the classic token has the scopes ${scopes.join(', ') || '(none)'}` }
}

function connect(auth: Auth, apiUrl: string): HostApi {
  const octokit = createGithubClient({ baseUrl: apiUrl, ...auth })
  return {
    webhooks: cachingOwnerHooks(githubWebhookApi(octokit)),
    changedFiles: githubChangedFiles(octokit),
    readFile: githubReadFile(octokit),
    teamMembers: githubTeamMembers(octokit),
    requestReviewers: githubRequestReviewers(octokit),
    reconcile(gate, clock) {
      const request = githubRequests(octokit, gate, clock)
      return {
        readPullRequest: readPullRequestWith(async ({ owner, repo, number }) => {
          const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls/${number}`
          const { data } = await request<{ user?: unknown }>('GET', path)
          return {
            what: `GET ${path}`,
            decoded: decodeGithub('pull_request', 'reconcile', { action: 'opened', pull_request: data, repository: { owner: { login: owner }, name: repo }, sender: data.user }),
          }
        }),
        missedDeliveries: (options) => missedDeliveries({ ...options, request }),
      }
    },
    async upsertWebhook(spec) {
      const { action, id } = await upsertGithubWebhook(octokit, spec, [...GITHUB_REQUIRED_EVENTS, ...GITHUB_OPTIONAL_EVENTS])
      return { action, id: String(id) }
    },
    emailOf: (login) => githubCall(octokit, `GET /users/${login}`, async () => {
      try {
        return (await octokit.request('GET /users/{username}', { username: login })).data.email ?? undefined
      } catch (error) {
        // No such account (renamed or deleted since the delivery): nobody to find, not a failure.
        if ((error as { status?: unknown }).status === 404) return undefined
        throw error
      }
    }),
    comments: githubOwnComments(octokit),
    ...(auth.app ? {
      ownerAccess: (owner: string) => githubCall(octokit, `the installation on ${owner}`, () => octokit.auth(owner) as Promise<string>),
      commentAccess: (owner: string) => githubCall(octokit, `the installation on ${owner}`, async () => commentAccessOf(await (octokit.auth as unknown as AppAuthOf).permissions(owner))),
    } : {
      commentAccess: () => githubCall(octokit, 'GET /user', async () => tokenCommentAccess((await octokit.request('GET /user')).headers['x-oauth-scopes'])),
    }),
  }
}

export const github: GitHost = {
  id: 'github',
  words: { name: 'GitHub', product: 'GitHub (github.com or GitHub Enterprise Server)', pullRequest: 'pull request', reference: 'PR #', owner: 'organisation', repositoryExample: 'owner/repo' },
  nestedOwners: false,
  variables: { secret: 'GITHUB_WEBHOOK_SECRET', token: 'GITHUB_TOKEN', apiUrl: 'GITHUB_API_URL', extra: APP_VARIABLES, extraHelp: APP_VARIABLE_HELP },
  defaultApiUrl: 'https://api.github.com',
  selfManaged: { name: 'GitHub Enterprise Server', apiUrl: 'https://HOST/api/v3' },
  delivery: {
    headers,
    authenticate: (secrets, given, body) => verifySignature(secrets, body, given.get(headers.auth)),
    eventName: (given) => given.get(headers.event)?.trim() ?? '',
    deliveryId: (given, body) => given.get(headers.delivery)?.trim() || bodyDigestId(body),
    decode: (eventName, deliveryId, payload) => CHECK_EVENTS.has(eventName)
      ? decodeGithubCheck(eventName, deliveryId, payload)
      : decodeGithub(eventName, deliveryId, payload),
  },
  webhook: {
    required: GITHUB_REQUIRED_EVENTS,
    optional: GITHUB_OPTIONAL_EVENTS,
    sendsEverything: (events) => events.includes('*'),
    setupFix: (target) => `run prherald-config create-webhook ${target} (needs PRHERALD_PUBLIC_URL, GITHUB_TOKEN and GITHUB_WEBHOOK_SECRET)`,
    eventsFix: (target) => `tick those events on the webhook, or run prherald-config create-webhook ${target} to update it`,
    createAccess: 'a token with admin rights on the repository hooks ("Webhooks: read and write"; classic: admin:repo_hook)',
    ownerHookAccess: 'GITHUB_TOKEN must be able to read organisation webhooks (fine-grained: Organization permissions → Webhooks: read; classic: admin:org_hook)',
  },
  people: {
    keyOf: (actor) => actor.login,
    caseInsensitive: true,
    keyDescription: 'GitHub logins, case ignored',
    teamDescription: 'GitHub team slugs, case ignored',
    teamReviewRequests: true,
    emailLookup: true,
  },
  dependencyBots: ['dependabot[bot]', 'renovate[bot]'],
  readAccess: readGithubAccess,
  connect(access, apiUrl) {
    const auth = authOf(access)
    return auth === undefined ? undefined : connect(auth, apiUrl)
  },
  smokeDelivery(run, step, secret) {
    const { event, payload } = githubSmokePayload(run, step, new Date().toISOString())
    return smokeRequest(github.delivery, event, payload, (body) => signBody(secret, body))
  },
  talkBack: githubTalkBack,
  // "About code owners": "a file called CODEOWNERS in the .github/, root, or docs/ directory … If CODEOWNERS
  // files exist in more than one of those locations, GitHub will search for them in that order and use the
  // first one it finds." No sections, no negation, no escaped #; inline comments as its example writes them.
  codeOwners: {
    locations: ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'],
    syntax: { sections: false, escapedHash: false, negation: false, inlineComments: true },
  },
}
