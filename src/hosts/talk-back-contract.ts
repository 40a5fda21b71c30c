import type { ReviewKind } from '../../machines/review-kind.ts'
import type { Env, PullRequestAddress } from './contract.ts'

/**
 * A host's part of talk-back (docs/talk-back.md): a person links their own account with the host's
 * OAuth, and prherald then comments and reviews as them. Optional on `GitHost`: a host without it offers no
 * linking. Every call that carries a person's token answers a refusal as a PrheraldError whose `hostSays` is
 * the host's own words (src/hosts/git-host-error.ts); no token ever reaches a message or a log.
 */
export interface TalkBack {
  /** The variables it reads, for the doctor and docs/configuration.md. */
  readonly variables: { clientId: string; clientSecret: string; webUrl?: string }
  /** What prherald's own credentials need to comment for people who are not linked (`thread_replies: everyone`), for the doctor and setup. */
  readonly ownWriteAccess: string
  /** The OAuth client from the environment; undefined when unset (no linking); throws config_invalid when half set. */
  readOAuth(env: Env, apiUrl: string): OAuthClient | undefined
  /** The OAuth flow and the person's API, against the host's web address and its API; `now` dates the tokens' expiry. */
  connect(client: OAuthClient, apiUrl: string, now?: () => number): TalkBackApi
  /** How a comment mentions the account `users:` keys with this key (`@alice`; Bitbucket `@{account id}`). */
  mention(key: string): string
}

/** Client id and secret are secrets to the logger; the web URL is where the OAuth pages live. */
export interface OAuthClient {
  clientId: string
  clientSecret: string
  /** GITHUB_WEB_URL, GITLAB_API_URL less /api/v4, BITBUCKET_WEB_URL; no trailing slash. */
  webUrl: string
}

export interface TalkBackApi {
  /** The page the person's browser is sent to. `codeChallenge` is S256 of the flow's verifier (GitLab requires it; the others ignore or accept it). */
  authorizeUrl(flow: { state: string; redirectUri: string; codeChallenge: string }): string
  /** The callback's code for the person's tokens. */
  exchangeCode(flow: { code: string; redirectUri: string; codeVerifier: string }): Promise<HostTokens>
  /**
   * New tokens for a refresh token. Every host rotates: the answer's refresh token replaces the old one, which
   * no longer works. A refusal (revoked, expired, already used) throws `git_host_auth`: the person links again.
   */
  refresh(refreshToken: string, redirectUri: string): Promise<HostTokens>
  /** Ends the token at the host; `unsupported` where the host has no revocation API (Bitbucket Cloud). */
  revoke(tokens: HostTokens): Promise<'revoked' | 'unsupported'>
  /** Whose token it is: compared with the account `users:` maps to the Slack user who asked. */
  account(accessToken: string): Promise<HostAccount>
  /** Calls as the person. */
  as(accessToken: string): PersonApi
}

export interface HostTokens {
  accessToken: string
  /** Absent where the host issues tokens that do not expire (a GitHub OAuth App, or an App with expiry off). */
  refreshToken?: string | undefined
  /** Unix ms; absent: does not expire. */
  expiresAt?: number | undefined
  /** Unix ms, where the host says (GitHub: six months); the relink notice is due before it. */
  refreshExpiresAt?: number | undefined
}

export interface HostAccount {
  /** The login (GitHub, GitLab username; Bitbucket nickname). */
  login: string
  /** Bitbucket's account id: the key `users:` uses there. */
  accountId?: string | undefined
  displayName?: string | undefined
}

export type { ReviewKind }

export interface Review {
  kind: ReviewKind
  /** Required for request_changes (the modal says so); optional otherwise. */
  body?: string | undefined
  /** The head commit the message showed: a newer head at the host is refused in the host's words where it checks (GitHub, GitLab). */
  headSha: string
}

/** What a review left at the host. `steps` are the calls it took, each with its outcome: approving with text is two calls on GitLab and Bitbucket, and a failed second one is reported, not hidden. */
export interface ReviewOutcome {
  steps: Array<{ step: 'review' | 'approve' | 'request_changes' | 'comment'; ok: true; id?: string } | { step: 'comment'; ok: false; error: Error }>
}

export interface CommentRef {
  /** The host's comment (note) id, kept with the reply that made it. */
  id: string
  url?: string | undefined
}

/**
 * The hidden line that ends a comment prherald made from a thread reply (talk-back/reply-body.ts): a Markdown
 * link reference definition, which GitHub, GitLab and Bitbucket keep in the comment's source and none shows.
 */
export const markerLine = (marker: string) => `[//]: # (${marker})`

/** Comments on a pull request, as one account: a linked person's, or prherald's own (`HostApi.comments`). */
export interface CommentApi {
  createComment(pr: PullRequestAddress, body: string): Promise<CommentRef>
  editComment(pr: PullRequestAddress, id: string, body: string): Promise<void>
  /** A comment already gone counts as deleted. */
  deleteComment(pr: PullRequestAddress, id: string): Promise<void>
  /**
   * The comment whose last line is `marker`'s (markerLine), among the pull request's most recent (one page of 100, made or
   * edited since `since`, unix ms): a create whose answer was lost is found here before anything is created again.
   */
  findComment(pr: PullRequestAddress, marker: string, since: number): Promise<string | undefined>
  /**
   * The same calls on one code thread (`thread` is the HostComment's, opaque outside the host's folder): a create
   * is a reply in that thread (a mirrored comment's Reply button, a thread reply that links to the mirrored
   * message), and edit, delete and find act on that thread's comments. Absent where the host has no such threads.
   */
  inThread?(thread: string): CommentApi
}

export interface PersonApi extends CommentApi {
  review(pr: PullRequestAddress, review: Review): Promise<ReviewOutcome>
  /** Whether "request changes" can be offered (GitLab: only where the server has it); absent means yes. */
  canRequestChanges?(): Promise<boolean>
}
