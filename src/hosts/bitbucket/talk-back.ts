import type { HostErrorWords } from '../git-host-error.ts'
import { readOAuthClient } from '../read-oauth-client.ts'
import type { CommentApi, OAuthClient, PersonApi, ReviewOutcome, TalkBack, TalkBackApi } from '../talk-back-contract.ts'
import { basicAuth, deleted, headMoved, markedComment, talkBackCall, tokenCall, trimBase, type TalkBackHttp } from '../talk-back-http.ts'

/**
 * Bitbucket Cloud's part of talk-back: an OAuth consumer (the workspace's settings) at BITBUCKET_WEB_URL; 2-hour
 * access tokens, refresh tokens rotated on use. Bitbucket has no revocation API for a consumer: unlinking
 * deletes prherald's copy, and the person removes the grant in their Bitbucket settings (docs/talk-back.md).
 * Its approval takes no commit either: prherald reads the pull request's head first and refuses a moved one.
 */
const WORDS: HostErrorWords = {
  name: 'Bitbucket',
  apiUrlVariable: 'BITBUCKET_API_URL',
  authFix: 'Bitbucket refused the person\'s token (revoked or expired): they link again with /prherald link bitbucket',
  scopeFix: 'the person cannot do this on Bitbucket: the OAuth consumer needs the "Pull requests: Write" permission, and the person write access to the repository',
}

/** Bitbucket's reason: `error.message` and its `detail`, or an OAuth `error_description`. */
export function bitbucketReason(body: unknown): string | undefined {
  const { error, error_description: description } = (body ?? {}) as { error?: unknown; error_description?: unknown }
  if (typeof description === 'string') return description
  if (error && typeof error === 'object') {
    const { message, detail } = error as { message?: unknown; detail?: unknown }
    const parts = [message, detail].filter((p): p is string => typeof p === 'string' && p !== '')
    return parts.length > 0 ? parts.join(': ') : undefined
  }
  return typeof error === 'string' ? error : undefined
}

/** Two hashes of one commit, either of them short (Bitbucket's 12 characters). */
/** Bitbucket's code for a refresh token it no longer takes (see where the token calls are made). */
const BITBUCKET_GRANT_OVER: ReadonlySet<string> = new Set(['invalid_request'])

const sameCommit = (a: string, b: string) => b !== '' && (a.startsWith(b) || b.startsWith(a))

/** The pull request API as whoever `authorization` names: a linked person (`Bearer` their token), or prherald's own credentials. */
export function bitbucketPersonApi(apiUrl: string, authorization: string): PersonApi {
  const api = trimBase(apiUrl)
  const http: TalkBackHttp = { provider: 'bitbucket', words: WORDS, baseUrl: api, reason: bitbucketReason }
  const pull = (pr: { owner: string; repo: string; number: number }) =>
    `${api}/repositories/${encodeURIComponent(pr.owner)}/${encodeURIComponent(pr.repo)}/pullrequests/${pr.number}`
  const comment = async (pr: Parameters<typeof pull>[0], raw: string) => {
    const made = await talkBackCall<{ id: number; links?: { html?: { href?: string } } }>(http, { method: 'POST', url: `${pull(pr)}/comments`, authorization, json: { content: { raw } } })
    return { id: String(made.id), url: made.links?.html?.href }
  }
  const comments: CommentApi = {
    createComment: comment,
    async editComment(pr, id, raw) {
      await talkBackCall(http, { method: 'PUT', url: `${pull(pr)}/comments/${encodeURIComponent(id)}`, authorization, json: { content: { raw } } })
    },
    async deleteComment(pr, id) {
      await deleted(talkBackCall(http, { method: 'DELETE', url: `${pull(pr)}/comments/${encodeURIComponent(id)}`, authorization }))
    },
    async findComment(pr, marker) {
      // "List comments on a pull request": the pull request's comments, "global, inline comments and replies" alike.
      const page = await talkBackCall<{ values?: Array<{ id: number; content?: { raw?: string } }> }>(http, { method: 'GET', url: `${pull(pr)}/comments?sort=-created_on&pagelen=100`, authorization })
      return markedComment((page.values ?? []).map((c) => ({ id: c.id, body: c.content?.raw ?? '' })), marker)
    },
  }
  return {
    ...comments,
    // A reply in a code thread is a comment like any other once made (edited, deleted and listed as one); only its
    // create names the parent.
    inThread: (thread) => ({
      ...comments,
      async createComment(pr, raw) {
        // REST "Create a comment on a pull request": a reply names its parent, `parent: { id }`; it shows in the parent's inline thread.
        const made = await talkBackCall<{ id: number; links?: { html?: { href?: string } } }>(http, { method: 'POST', url: `${pull(pr)}/comments`, authorization, json: { content: { raw }, parent: { id: Number(thread) } } })
        return { id: String(made.id), url: made.links?.html?.href }
      },
    }),
    async review(pr, review): Promise<ReviewOutcome> {
      // Bitbucket's approve and request-changes take no commit (REST "Approve a pull request": POST …/pullrequests/
      // {pull_request_id}/approve, its parameters the workspace, repository and id alone),
      // so the head is read first and compared, as on the other hosts. Bitbucket writes hashes short in places (a
      // webhook's `source.commit.hash` is 12 characters): the same commit when one begins with the other.
      const { source } = await talkBackCall<{ source?: { commit?: { hash?: string } } }>(http, { method: 'GET', url: pull(pr), authorization })
      const hash = source?.commit?.hash
      if (hash && !sameCommit(hash, review.headSha)) throw headMoved(review.headSha, hash)
      if (review.kind === 'comment') return { steps: [{ step: 'comment', ok: true, id: (await comment(pr, review.body ?? '')).id }] }
      const step = review.kind === 'approve' ? 'approve' : 'request_changes'
      await talkBackCall(http, { method: 'POST', url: `${pull(pr)}/${review.kind === 'approve' ? 'approve' : 'request-changes'}`, authorization })
      if (!review.body) return { steps: [{ step, ok: true }] }
      try {
        return { steps: [{ step, ok: true }, { step: 'comment', ok: true, id: (await comment(pr, review.body)).id }] }
      } catch (error) {
        return { steps: [{ step, ok: true }, { step: 'comment', ok: false, error: error as Error }] }
      }
    },
  }
}

function connect(client: OAuthClient, apiUrl: string, now: () => number = Date.now): TalkBackApi {
  const api = trimBase(apiUrl)
  const http: TalkBackHttp = { provider: 'bitbucket', words: WORDS, baseUrl: api, reason: bitbucketReason }
  // Bitbucket Cloud answers a refresh token it no longer takes with 400 `{"error_description": "Invalid
  // refresh_token", "error": "invalid_request"}` (Atlassian Community, "How do I refresh a token"), not RFC 6749's
  // invalid_grant; a wrong consumer key or secret is `unauthorized_client` ("Invalid OAuth client credentials").
  // prherald's token requests are fixed in form, so invalid_request there says the grant, not the request, is bad.
  const oauth: TalkBackHttp = { ...http, baseUrl: client.webUrl, grantOver: BITBUCKET_GRANT_OVER }
  const tokenUrl = `${client.webUrl}/site/oauth2/access_token`
  const consumer = basicAuth(client.clientId, client.clientSecret)
  return {
    authorizeUrl({ state, redirectUri }) {
      // No PKCE at Bitbucket Cloud: the state (tied to the browser's cookie) and the consumer's secret guard the code.
      const query = new URLSearchParams({ client_id: client.clientId, response_type: 'code', state, redirect_uri: redirectUri })
      return `${client.webUrl}/site/oauth2/authorize?${query}`
    },
    exchangeCode: ({ code, redirectUri }) =>
      tokenCall(oauth, { method: 'POST', url: tokenUrl, authorization: consumer, form: { grant_type: 'authorization_code', code, redirect_uri: redirectUri } }, 'code', now()),
    refresh: (refreshToken) =>
      tokenCall(oauth, { method: 'POST', url: tokenUrl, authorization: consumer, form: { grant_type: 'refresh_token', refresh_token: refreshToken } }, 'refresh', now()),
    revoke: async () => 'unsupported',
    async account(token) {
      const user = await talkBackCall<{ account_id?: string; nickname?: string; display_name?: string }>(http, { method: 'GET', url: `${api}/user`, authorization: `Bearer ${token}` })
      return { login: user.nickname ?? user.account_id ?? '', accountId: user.account_id, displayName: user.display_name }
    },
    as: (token) => bitbucketPersonApi(api, `Bearer ${token}`),
  }
}

export const bitbucketTalkBack: TalkBack = {
  variables: { clientId: 'BITBUCKET_OAUTH_CLIENT_ID', clientSecret: 'BITBUCKET_OAUTH_CLIENT_SECRET', webUrl: 'BITBUCKET_WEB_URL' },
  ownWriteAccess: 'BITBUCKET_TOKEN (an access token or API token) with pullrequest:write (Pull requests: Write)',
  readOAuth: (env) => readOAuthClient(env, { clientId: 'BITBUCKET_OAUTH_CLIENT_ID', clientSecret: 'BITBUCKET_OAUTH_CLIENT_SECRET' },
    { value: env.BITBUCKET_WEB_URL?.trim() || 'https://bitbucket.org', variable: 'BITBUCKET_WEB_URL' }),
  connect,
  // Bitbucket mentions by account id; a nickname is not unique.
  mention: (accountId) => `@{${accountId}}`,
}
