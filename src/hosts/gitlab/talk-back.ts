import { isPrheraldError, PrheraldError } from '../../errors.ts'
import type { HostErrorWords } from '../git-host-error.ts'
import { readOAuthClient } from '../read-oauth-client.ts'
import type { OAuthClient, PersonApi, ReviewOutcome, TalkBack, TalkBackApi } from '../talk-back-contract.ts'
import { deleted, headMoved, markedComment, talkBackCall, tokenCall, trimBase, type TalkBackHttp } from '../talk-back-http.ts'
import { projectId } from './client.ts'

/**
 * GitLab's part of talk-back: an OAuth application with the `api` scope and PKCE (S256); 2-hour access tokens
 * whose refresh token is rotated on use. The OAuth pages live at GITLAB_API_URL less `/api/v4`, keeping a
 * relative root (`https://host/gitlab/api/v4` → `https://host/gitlab`). docs/talk-back.md.
 */
const WORDS: HostErrorWords = {
  name: 'GitLab',
  apiUrlVariable: 'GITLAB_API_URL',
  authFix: 'GitLab refused the person\'s token (revoked or expired): they link again with /prherald link gitlab',
  scopeFix: 'the person cannot do this on GitLab: they need at least the Developer role (or to be an eligible approver), and the token the api scope',
}

/** "request changes" by bulk_publish's `reviewer_state` (GitLab 19.2 and later, docs/gitlab.md). */
export const REQUEST_CHANGES_SINCE = [19, 2] as const

/** GitLab's reason: `message` (a string, or field errors), or an OAuth `error_description`. */
export function gitlabReason(body: unknown): string | undefined {
  const { message, error, error_description: description } = (body ?? {}) as { message?: unknown; error?: unknown; error_description?: unknown }
  if (typeof description === 'string') return description
  if (typeof message === 'string') return message
  if (message && typeof message === 'object') {
    return Object.entries(message as Record<string, unknown>).map(([field, why]) => `${field} ${Array.isArray(why) ? why.join(', ') : String(why)}`).join('; ')
  }
  return typeof error === 'string' ? error : undefined
}

/** The web address of an API URL: its `/api/v4` removed, a relative root kept. */
export function gitlabWebUrl(apiUrl: string): string {
  return trimBase(apiUrl).replace(/\/api\/v4$/, '')
}

const atLeast = (version: string, [major, minor]: readonly [number, number]) => {
  const [a = 0, b = 0] = version.split(/[.-]/).map(Number)
  return a > major || (a === major && b >= minor)
}

/**
 * GitLab answers 401 to an approval it does not allow (one's own merge request, already approved, not an
 * eligible approver), the same status as a dead token: a token that still reads /user was not the problem.
 */
async function approvalRefusal(error: unknown, whoAmI: () => Promise<unknown>): Promise<unknown> {
  if (!isPrheraldError(error, 'git_host_auth')) return error
  try {
    await whoAmI()
  } catch {
    return error
  }
  const hostSays = 'GitLab did not let you approve this merge request (your own, already approved by you, or you are not an eligible approver)'
  return new PrheraldError('git_host_refused', hostSays, { cause: error, hostSays, fix: 'see the merge request\'s approval rules in GitLab' })
}

const refused = (hostSays: string, fix: string) => new PrheraldError('git_host_refused', hostSays, { hostSays, fix })

/**
 * What must hold before "request changes" goes out as bulk_publish with `reviewer_state`, the only call that
 * sets that state (Draft Notes API: "Publish all pending draft notes"; the per-note `PUT …/draft_notes/:id/publish`
 * takes no state), checked with nothing sent:
 * - the person is one of the merge request's `reviewers` (GET merge_requests/:iid): "If you are the merge request
 *   author, GitLab ignores this flag unless you are also listed as one of the reviewers" (glab mr note draft
 *   publish, on `--reviewer-state`); the state is a reviewer's, so anyone else would read "Changes requested"
 *   while GitLab may record none;
 * - the person has no draft notes on it: bulk_publish publishes them all ("Publish every pending review comment
 *   you created on a merge request", same page), and the list is theirs alone (Draft Notes API, "List all merge
 *   request draft notes": GET …/draft_notes; "Before publishing, draft notes are visible only to the author").
 *   prherald makes no draft of its own: its text travels as bulk_publish's `note`.
 */
async function requestChangesAllowed(reviewers: Array<{ username?: string }>, whoAmI: () => Promise<{ username: string }>, drafts: () => Promise<unknown[]>): Promise<void> {
  const { username } = await whoAmI()
  if (!reviewers.some((r) => r.username === username)) {
    throw refused('you are not a reviewer of this merge request, and GitLab records requested changes only from its reviewers; nothing was sent',
      'the person asks to be added as a reviewer on GitLab and requests changes again, or comments instead')
  }
  const pending = (await drafts()).length
  if (pending > 0) {
    throw refused(`you have ${pending} unpublished draft comment${pending === 1 ? '' : 's'} on this merge request, which GitLab would publish with your review; nothing was sent: publish or delete them on GitLab first, or review there`,
      'the person publishes or deletes their draft comments on GitLab, then requests changes again')
  }
}

/** The merge request API as whoever `authorization` names: a linked person (`Bearer` their token), or prherald's own token. */
export function gitlabPersonApi(apiUrl: string, authorization: string): PersonApi {
  const api = trimBase(apiUrl)
  const http: TalkBackHttp = { provider: 'gitlab', words: WORDS, baseUrl: api, reason: gitlabReason }
  const mr = (pr: { owner: string; repo: string; number: number }) => `${api}/projects/${projectId(pr.owner, pr.repo)}/merge_requests/${pr.number}`
  const note = async (pr: Parameters<typeof mr>[0], body: string) =>
    String((await talkBackCall<{ id: number }>(http, { method: 'POST', url: `${mr(pr)}/notes`, authorization, json: { body } })).id)
  return {
    createComment: async (pr, body) => ({ id: await note(pr, body) }),
    inThread: (thread) => {
      // Discussions API, one merge request thread: "Add note to existing merge request thread" (POST …/discussions/
      // :discussion_id/notes with `body`), "Modify an existing merge request thread note" (PUT …/notes/:note_id),
      // "Delete a merge request thread note" (DELETE), and "Get single merge request discussion item" (its `notes`).
      const discussion = (pr: Parameters<typeof mr>[0]) => `${mr(pr)}/discussions/${encodeURIComponent(thread)}`
      return {
        createComment: async (pr, body) => ({
          id: String((await talkBackCall<{ id: number }>(http, { method: 'POST', url: `${discussion(pr)}/notes`, authorization, json: { body } })).id),
        }),
        async editComment(pr, id, body) {
          await talkBackCall(http, { method: 'PUT', url: `${discussion(pr)}/notes/${encodeURIComponent(id)}`, authorization, json: { body } })
        },
        async deleteComment(pr, id) {
          await deleted(talkBackCall(http, { method: 'DELETE', url: `${discussion(pr)}/notes/${encodeURIComponent(id)}`, authorization }))
        },
        async findComment(pr, marker) {
          const { notes } = await talkBackCall<{ notes?: Array<{ id: number; body?: string }> }>(http, { method: 'GET', url: discussion(pr), authorization })
          return markedComment((notes ?? []).map((n) => ({ id: n.id, body: n.body ?? '' })), marker)
        },
      }
    },
    async editComment(pr, id, body) {
      await talkBackCall(http, { method: 'PUT', url: `${mr(pr)}/notes/${encodeURIComponent(id)}`, authorization, json: { body } })
    },
    async deleteComment(pr, id) {
      await deleted(talkBackCall(http, { method: 'DELETE', url: `${mr(pr)}/notes/${encodeURIComponent(id)}`, authorization }))
    },
    async findComment(pr, marker) {
      const list = await talkBackCall<Array<{ id: number; body?: string }>>(http, { method: 'GET', url: `${mr(pr)}/notes?sort=desc&order_by=created_at&per_page=100`, authorization })
      return markedComment(list.map((n) => ({ id: n.id, body: n.body ?? '' })), marker)
    },
    async review(pr, review): Promise<ReviewOutcome> {
      // The head is read first, as on GitHub, so a moved head is told alike whatever the kind (only approve takes a
      // `sha`, which stays for a push between this read and the approval: GitLab then answers 409 in its words).
      const { sha, reviewers } = await talkBackCall<{ sha?: string; reviewers?: Array<{ username?: string }> }>(http, { method: 'GET', url: mr(pr), authorization })
      if (sha && sha !== review.headSha) throw headMoved(review.headSha, sha)
      if (review.kind === 'comment') return { steps: [{ step: 'comment', ok: true, id: await note(pr, review.body ?? '') }] }
      if (review.kind === 'request_changes') {
        await requestChangesAllowed(reviewers ?? [], () => talkBackCall<{ username: string }>(http, { method: 'GET', url: `${api}/user`, authorization }),
          () => talkBackCall<unknown[]>(http, { method: 'GET', url: `${mr(pr)}/draft_notes`, authorization }))
        // One call: the summary note and the reviewer state are published together.
        await talkBackCall(http, { method: 'POST', url: `${mr(pr)}/draft_notes/bulk_publish`, authorization, json: { note: review.body ?? '', reviewer_state: 'requested_changes' } })
        return { steps: [{ step: 'request_changes', ok: true }] }
      }
      // `sha`: GitLab refuses (409) when the merge request's head moved past the one the message showed.
      await talkBackCall(http, { method: 'POST', url: `${mr(pr)}/approve`, authorization, json: { sha: review.headSha } }).catch(async (error: unknown) => {
        throw await approvalRefusal(error, () => talkBackCall(http, { method: 'GET', url: `${api}/user`, authorization }))
      })
      if (!review.body) return { steps: [{ step: 'approve', ok: true }] }
      try {
        return { steps: [{ step: 'approve', ok: true }, { step: 'comment', ok: true, id: await note(pr, review.body) }] }
      } catch (error) {
        // The approval stands; the text did not reach GitLab, and the person is told so.
        return { steps: [{ step: 'approve', ok: true }, { step: 'comment', ok: false, error: error as Error }] }
      }
    },
    async canRequestChanges() {
      const { version } = await talkBackCall<{ version: string }>(http, { method: 'GET', url: `${api}/version`, authorization })
      return atLeast(version, REQUEST_CHANGES_SINCE)
    },
  }
}

function connect(client: OAuthClient, apiUrl: string, now: () => number = Date.now): TalkBackApi {
  const api = trimBase(apiUrl)
  const http: TalkBackHttp = { provider: 'gitlab', words: WORDS, baseUrl: api, reason: gitlabReason }
  const oauth: TalkBackHttp = { ...http, baseUrl: client.webUrl }
  const secrets = { client_id: client.clientId, client_secret: client.clientSecret }
  return {
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const query = new URLSearchParams({
        client_id: client.clientId, redirect_uri: redirectUri, response_type: 'code', state, scope: 'api',
        code_challenge: codeChallenge, code_challenge_method: 'S256',
      })
      return `${client.webUrl}/oauth/authorize?${query}`
    },
    exchangeCode: ({ code, redirectUri, codeVerifier }) => tokenCall(oauth, {
      method: 'POST', url: `${client.webUrl}/oauth/token`,
      form: { ...secrets, code, grant_type: 'authorization_code', redirect_uri: redirectUri, code_verifier: codeVerifier },
    }, 'code', now()),
    refresh: (refreshToken, redirectUri) => tokenCall(oauth, {
      method: 'POST', url: `${client.webUrl}/oauth/token`,
      form: { ...secrets, refresh_token: refreshToken, grant_type: 'refresh_token', redirect_uri: redirectUri },
    }, 'refresh', now()),
    async revoke(tokens) {
      // Revoking the access token ends its refresh token too (Doorkeeper revokes the grant's pair).
      await talkBackCall(oauth, { method: 'POST', url: `${client.webUrl}/oauth/revoke`, form: { ...secrets, token: tokens.accessToken } })
      return 'revoked'
    },
    async account(token) {
      const user = await talkBackCall<{ username: string; name?: string }>(http, { method: 'GET', url: `${api}/user`, authorization: `Bearer ${token}` })
      return { login: user.username, displayName: user.name }
    },
    as: (token) => gitlabPersonApi(api, `Bearer ${token}`),
  }
}

export const gitlabTalkBack: TalkBack = {
  variables: { clientId: 'GITLAB_OAUTH_CLIENT_ID', clientSecret: 'GITLAB_OAUTH_CLIENT_SECRET' },
  ownWriteAccess: 'GITLAB_TOKEN with the api scope (read_api cannot comment) and at least the Reporter role in the project',
  readOAuth: (env, apiUrl) => readOAuthClient(env, { clientId: 'GITLAB_OAUTH_CLIENT_ID', clientSecret: 'GITLAB_OAUTH_CLIENT_SECRET' },
    { value: gitlabWebUrl(apiUrl), variable: 'GITLAB_API_URL' }),
  connect,
  mention: (username) => `@${username}`,
}
