import type { HostErrorWords } from '../git-host-error.ts'
import { readOAuthClient } from '../read-oauth-client.ts'
import type { OAuthClient, PersonApi, ReviewKind, TalkBack, TalkBackApi } from '../talk-back-contract.ts'
import { basicAuth, deleted, headMoved, markedComment, talkBackCall, tokenCall, trimBase, type TalkBackHttp } from '../talk-back-http.ts'

/**
 * GitHub's part of talk-back: a GitHub App's user access tokens (8 hours, refresh tokens for 6 months, rotated
 * on each refresh) or an OAuth App's (no expiry, no refresh token), at GITHUB_WEB_URL (github.com, or a GitHub
 * Enterprise Server's address, which differs from its /api/v3). docs/talk-back.md.
 */
const WORDS: HostErrorWords = {
  name: 'GitHub',
  apiUrlVariable: 'GITHUB_API_URL',
  authFix: 'GitHub refused the person\'s token (revoked, or the app uninstalled): they link again with /prherald link github',
  scopeFix: 'the person\'s token cannot do this: a GitHub App needs "Pull requests: write" (and the person access to the repository); an OAuth App the repo scope',
}

/** GitHub's reason: `errors` (strings or objects with `message`) says more than `message` ("Unprocessable Entity"). */
export function githubReason(body: unknown): string | undefined {
  const { message, errors, error_description: description } = (body ?? {}) as { message?: unknown; errors?: unknown; error_description?: unknown }
  const details = Array.isArray(errors)
    ? errors.map((e: unknown) => (typeof e === 'string' ? e : typeof (e as { message?: unknown })?.message === 'string' ? (e as { message: string }).message : undefined)).filter((e): e is string => !!e)
    : []
  if (details.length > 0) return details.join('; ')
  return typeof message === 'string' ? message : typeof description === 'string' ? description : undefined
}

const EVENT: Record<ReviewKind, string> = { approve: 'APPROVE', request_changes: 'REQUEST_CHANGES', comment: 'COMMENT' }

function connect(client: OAuthClient, apiUrl: string, now: () => number = Date.now): TalkBackApi {
  const api = trimBase(apiUrl)
  const http: TalkBackHttp = {
    provider: 'github', words: WORDS, baseUrl: api, reason: githubReason,
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
  }
  const oauth: TalkBackHttp = { ...http, baseUrl: client.webUrl, headers: {} }
  const tokenUrl = `${client.webUrl}/login/oauth/access_token`
  const secrets = { client_id: client.clientId, client_secret: client.clientSecret }
  const person = (token: string): PersonApi => {
    const authorization = `Bearer ${token}`
    const repo = (pr: { owner: string; repo: string }) => `${api}/repos/${encodeURIComponent(pr.owner)}/${encodeURIComponent(pr.repo)}`
    return {
      async createComment(pr, body) {
        const made = await talkBackCall<{ id: number; html_url?: string }>(http, { method: 'POST', url: `${repo(pr)}/issues/${pr.number}/comments`, authorization, json: { body } })
        return { id: String(made.id), url: made.html_url }
      },
      async editComment(pr, id, body) {
        await talkBackCall(http, { method: 'PATCH', url: `${repo(pr)}/issues/comments/${encodeURIComponent(id)}`, authorization, json: { body } })
      },
      async deleteComment(pr, id) {
        await deleted(talkBackCall(http, { method: 'DELETE', url: `${repo(pr)}/issues/comments/${encodeURIComponent(id)}`, authorization }))
      },
      async findComment(pr, marker, since) {
        // Oldest first, so `since` keeps the page to the comments made or edited around the lost create.
        const query = new URLSearchParams({ per_page: '100', since: new Date(since).toISOString() })
        const list = await talkBackCall<Array<{ id: number; body?: string | null }>>(http, { method: 'GET', url: `${repo(pr)}/issues/${pr.number}/comments?${query}`, authorization })
        return markedComment(list.map((c) => ({ id: c.id, body: c.body ?? '' })), marker)
      },
      inThread: (thread) => ({
        async createComment(pr, body) {
          // REST "Create a reply for a review comment": POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies,
          // where comment_id is "the ID of a top-level review comment, not a reply to that comment" (the thread's).
          const made = await talkBackCall<{ id: number; html_url?: string }>(http, { method: 'POST', url: `${repo(pr)}/pulls/${pr.number}/comments/${encodeURIComponent(thread)}/replies`, authorization, json: { body } })
          return { id: String(made.id), url: made.html_url }
        },
        // Review comments are "different from commit comments and issue comments in a pull request" (REST "Pull
        // request review comments"): they are edited and deleted at /pulls/comments/{comment_id}, not /issues/comments.
        async editComment(pr, id, body) {
          await talkBackCall(http, { method: 'PATCH', url: `${repo(pr)}/pulls/comments/${encodeURIComponent(id)}`, authorization, json: { body } })
        },
        async deleteComment(pr, id) {
          await deleted(talkBackCall(http, { method: 'DELETE', url: `${repo(pr)}/pulls/comments/${encodeURIComponent(id)}`, authorization }))
        },
        async findComment(pr, marker, since) {
          // "List review comments on a pull request" takes `since` ("Only show results that were last updated after the given time").
          const query = new URLSearchParams({ per_page: '100', since: new Date(since).toISOString() })
          const list = await talkBackCall<Array<{ id: number; body?: string | null }>>(http, { method: 'GET', url: `${repo(pr)}/pulls/${pr.number}/comments?${query}`, authorization })
          return markedComment(list.map((c) => ({ id: c.id, body: c.body ?? '' })), marker)
        },
      }),
      async review(pr, review) {
        // GitHub takes a review of an older commit: `commit_id` is "the SHA of the commit that needs a review. Not
        // using the latest commit SHA may render your review comment outdated" (REST "Create a review for a pull
        // request"), and an approval of it counts unless the branch dismisses stale approvals. So the head is read
        // first, and a review of code nobody saw is refused here.
        const current = await talkBackCall<{ head?: { sha?: string } }>(http, { method: 'GET', url: `${repo(pr)}/pulls/${pr.number}`, authorization })
        const head = current.head?.sha
        if (head !== undefined && head !== review.headSha) throw headMoved(review.headSha, head)
        const made = await talkBackCall<{ id: number }>(http, {
          method: 'POST', url: `${repo(pr)}/pulls/${pr.number}/reviews`, authorization,
          json: { commit_id: review.headSha, event: EVENT[review.kind], ...(review.body ? { body: review.body } : {}) },
        })
        return { steps: [{ step: 'review', ok: true, id: String(made.id) }] }
      },
    }
  }
  return {
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      // `scope` is for an OAuth App (commenting on private repositories needs `repo`); a GitHub App ignores it and
      // grants what its permissions and the person's access allow, which is why an App is the recommended client.
      const query = new URLSearchParams({ client_id: client.clientId, redirect_uri: redirectUri, state, scope: 'repo', code_challenge: codeChallenge, code_challenge_method: 'S256' })
      return `${client.webUrl}/login/oauth/authorize?${query}`
    },
    exchangeCode: ({ code, redirectUri, codeVerifier }) =>
      tokenCall(oauth, { method: 'POST', url: tokenUrl, form: { ...secrets, code, redirect_uri: redirectUri, code_verifier: codeVerifier } }, 'code', now()),
    refresh: (refreshToken) =>
      tokenCall(oauth, { method: 'POST', url: tokenUrl, form: { ...secrets, grant_type: 'refresh_token', refresh_token: refreshToken } }, 'refresh', now()),
    async revoke(tokens) {
      // The grant, not only this token: "Deleting an OAuth application's grant will also delete all OAuth tokens
      // associated with the application for the user. Once deleted, the application will have no access to the
      // user's account" (REST "Delete an app authorization"); DELETE …/token would end one token and leave the app
      // authorised. "You must use Basic Authentication … using the OAuth application's client_id and client_secret"
      // and "provide a valid OAuth access_token" (the vault refreshes an expired one first). A grant already gone is 404.
      await deleted(talkBackCall(http, {
        method: 'DELETE', url: `${api}/applications/${encodeURIComponent(client.clientId)}/grant`,
        authorization: basicAuth(client.clientId, client.clientSecret), json: { access_token: tokens.accessToken },
      }))
      return 'revoked'
    },
    async account(token) {
      const user = await talkBackCall<{ login: string; name?: string | null }>(http, { method: 'GET', url: `${api}/user`, authorization: `Bearer ${token}` })
      return { login: user.login, displayName: user.name ?? undefined }
    },
    as: person,
  }
}

export const githubTalkBack: TalkBack = {
  variables: { clientId: 'GITHUB_OAUTH_CLIENT_ID', clientSecret: 'GITHUB_OAUTH_CLIENT_SECRET', webUrl: 'GITHUB_WEB_URL' },
  ownWriteAccess: 'a GitHub App: Pull requests (or Issues): Read and write, its comments shown as <app>[bot]; a token: classic repo, fine-grained Pull requests: Read and write',
  readOAuth: (env) => readOAuthClient(env, { clientId: 'GITHUB_OAUTH_CLIENT_ID', clientSecret: 'GITHUB_OAUTH_CLIENT_SECRET' },
    { value: env.GITHUB_WEB_URL?.trim() || 'https://github.com', variable: 'GITHUB_WEB_URL' }),
  connect,
  mention: (login) => `@${login}`,
}
