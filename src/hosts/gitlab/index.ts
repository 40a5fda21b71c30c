import type { GitHost, HostApi } from '../contract.ts'
import { isPrheraldError } from '../../errors.ts'
import { smokeRequest } from '../smoke-delivery.ts'
import { bodyDigestId } from '../verify-signature.ts'
import { cachingOwnerHooks } from '../webhooks.ts'
import { gitlabReadFile } from './read-file.ts'
import { gitlabRequestReviewers } from './request-reviewers.ts'
import { gitlabTeamMembers } from './team-members.ts'
import { gitlabChangedFiles } from './changed-files.ts'
import { createGitlabClient } from './client.ts'
import { gitlabPersonApi, gitlabTalkBack } from './talk-back.ts'
import { decodeGitlab } from './decode.ts'
import { decodeGitlabPipeline, PIPELINE_HOOK } from './decode-pipeline.ts'
import { readGitlabMergeRequest } from './read-merge-request.ts'
import { GITLAB_OPTIONAL_EVENTS, GITLAB_REQUIRED_EVENTS } from './events.ts'
import { gitlabSmokePayload } from './smoke.ts'
import { verifyToken } from './verify-token.ts'
import { gitlabWebhookApi, upsertGitlabWebhook } from './webhooks.ts'

/**
 * `Idempotency-Key` (GitLab 17.4+) is the same on every resend of one event; `X-Gitlab-Event-UUID` is new on
 * each request, so it cannot recognise a resend. Older instances send no key: the body's digest stands in.
 */
const headers = { event: 'X-Gitlab-Event', delivery: 'Idempotency-Key', auth: 'X-Gitlab-Token' } as const

const byToken = (secrets: readonly string[], given: Headers) => verifyToken(secrets, given.get(headers.auth))

function connect(token: string, apiUrl: string): HostApi {
  const client = createGitlabClient({ baseUrl: apiUrl, token })
  return {
    webhooks: cachingOwnerHooks(gitlabWebhookApi(client)),
    changedFiles: gitlabChangedFiles(client),
    readFile: gitlabReadFile(client),
    requestReviewers: gitlabRequestReviewers(client),
    teamMembers: gitlabTeamMembers(client),
    reconcile: (gate, clock) => ({
      readPullRequest: readGitlabMergeRequest(client, gate, clock),
    }),
    upsertWebhook: (spec) => upsertGitlabWebhook(client, spec),
    // Notes as the token's user (a project or group access token shows as its bot user); needs the `api` scope.
    comments: gitlabPersonApi(apiUrl, `Bearer ${token}`),
    async emailOf(login) {
      const users = await client.request<Array<{ id: number }>>('GET', `/users?username=${encodeURIComponent(login)}`)
      const id = users[0]?.id
      if (id === undefined) return undefined
      // public_email: what the user chose to show; empty when they chose nothing.
      const user = await client.request<{ public_email?: string | null }>('GET', `/users/${id}`)
      return user.public_email || undefined
    },
    async commentAccess() {
      try {
        const { scopes } = await client.request<{ scopes?: string[] }>('GET', '/personal_access_tokens/self')
        return { granted: scopes?.includes('api') ?? false, says: `the token has the scopes ${scopes?.join(', ') || '(none)'}` }
      } catch (error) {
        // Older than 15.5: the token's scopes cannot be read.
        if (isPrheraldError(error) && error.code === 'git_host_not_found') return { granted: undefined, says: 'this GitLab does not tell a token\'s scopes (GET /personal_access_tokens/self: 404)' }
        throw error
      }
    },
  }
}

export const gitlab: GitHost = {
  id: 'gitlab',
  words: { name: 'GitLab', product: 'GitLab (gitlab.com or self-managed)', pullRequest: 'merge request', reference: 'MR !', owner: 'group', repositoryExample: 'group/project (nested: group/subgroup/project)' },
  nestedOwners: true,
  variables: { secret: 'GITLAB_WEBHOOK_SECRET', token: 'GITLAB_TOKEN', apiUrl: 'GITLAB_API_URL', extra: [], extraHelp: {} },
  selfManaged: { name: 'self-managed GitLab', apiUrl: 'https://HOST/api/v4' },
  defaultApiUrl: 'https://gitlab.com/api/v4',
  delivery: {
    headers,
    // GitLab sends the secret itself, so a tokenless request is refused before any byte of its body is read.
    authenticateHeaders: byToken,
    authenticate: byToken,
    eventName: (given) => given.get(headers.event)?.trim() ?? '',
    deliveryId: (given, body) => given.get(headers.delivery)?.trim() || bodyDigestId(body),
    decode: (eventName, deliveryId, payload) => eventName === PIPELINE_HOOK
      ? decodeGitlabPipeline(deliveryId, payload)
      : decodeGitlab(eventName, deliveryId, payload),
  },
  webhook: {
    required: GITLAB_REQUIRED_EVENTS,
    optional: GITLAB_OPTIONAL_EVENTS,
    sendsEverything: () => false,
    setupFix: (target) => `run prherald-config create-webhook ${target} (needs PRHERALD_PUBLIC_URL, GITLAB_TOKEN with the api scope and GITLAB_WEBHOOK_SECRET); ` +
      'a hook GitLab disabled after failed deliveries comes back with a successful test delivery (Settings > Webhooks > Test) once prherald answers',
    eventsFix: (target) => `tick Merge request events, Comments and Pipeline events on the hook, or run prherald-config create-webhook ${target} to update it`,
    createAccess: 'a token with the api scope and the Maintainer role on the project',
    ownerHookAccess: 'group webhooks need GitLab Premium or Ultimate and GITLAB_TOKEN of a group Owner (read_api)',
  },
  people: {
    keyOf: (actor) => actor.login,
    // GitLab usernames are unique regardless of case.
    caseInsensitive: true,
    keyDescription: 'GitLab usernames, case ignored',
    // `teams:` here names the owner's subgroups (assign:, follow:), each with a Slack user group.
    teamDescription: 'subgroups of the owner (acme/backend: backend), case ignored, for assign: and follow:',
    // Its review requests name people (reviewer_ids), never a group.
    teamReviewRequests: false,
    emailLookup: true,
  },
  // GitLab has no fixed identity for the dependency bots (Renovate and Dependabot run under accounts you create).
  dependencyBots: [],
  readAccess: (env) => ({ token: env.GITLAB_TOKEN || undefined, extra: {}, scheme: undefined }),
  connect: (access, apiUrl) => (access.token === undefined ? undefined : connect(access.token, apiUrl)),
  smokeDelivery(run, step, secret) {
    const { event, payload } = gitlabSmokePayload(run, step, new Date().toISOString())
    return smokeRequest(gitlab.delivery, event, payload, () => secret)
  },
  talkBack: gitlabTalkBack,
  // "Code Owners": the file in the root, docs/ or .gitlab/ directory; GitLab reads the first it finds in that
  // order (gitlab-org/gitlab#366394). Sections, exclusions (17.10), `\#`; "Inline comments are unsupported".
  codeOwners: {
    locations: ['CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS'],
    syntax: { sections: true, escapedHash: true, negation: true, inlineComments: false },
  },
}
