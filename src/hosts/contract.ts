import type { Actor, Delivery, PullRequestFacts } from '../../machines/pull-request-event.ts'
import type { ChangedFile } from './list-changed-files.ts'
import type { GateClock, HostRateGate } from './host-rate-gate.ts'
import type { CommentApi, TalkBack } from './talk-back-contract.ts'
import type { WebhookApi } from './webhooks.ts'

/**
 * What differs between git hosts, and nothing else. Each host is one folder under src/hosts/ whose index.ts
 * exports one `GitHost`; src/hosts/registry.ts lists them. Outside src/hosts/ (and the config schema, which
 * takes the registry's ids) nothing asks which host it is: it asks the host.
 */
/** Call slots: at most so many git-host calls at once (src/worker/call-limit.ts makes one). */
export type CallLimit = <T>(run: () => Promise<T>) => Promise<T>

/** The process environment, as the config loader passes it. */
export type Env = Readonly<Record<string, string | undefined>>

export interface GitHost {
  /** `git_provider`, the route `/webhook/<id>`, and the first part of a pull request's key. */
  readonly id: string
  readonly words: HostWords
  /** An owner may be a path of groups (GitLab's `group/subgroup`); elsewhere a `/` in a mappings owner never matches. */
  readonly nestedOwners: boolean
  readonly variables: HostVariables
  /** The API base when `variables.apiUrl` is unset. */
  readonly defaultApiUrl: string
  /**
   * A self-managed install, when the host has one: its name and its API base with HOST for the server's
   * address (`https://HOST/api/v3`). The CLIs' help shows it; the setup wizard asks for that URL.
   */
  readonly selfManaged?: { name: string; apiUrl: string }
  readonly delivery: DeliveryReader
  readonly webhook: WebhookFacts
  readonly people: PeopleFacts
  /** Authors whose pull requests are dependency bumps without any configuration (GitHub's hosted bots). */
  readonly dependencyBots: readonly string[]
  /** The optional credentials for API calls (none: the features that need them are off); throws config_invalid on unusable ones. */
  readAccess(env: Env): HostAccess
  /** The API with those credentials; undefined when there are none. */
  connect(access: HostAccess, apiUrl: string): HostApi | undefined
  /** The signed deliveries prherald-smoke sends, as this host would send them. */
  smokeDelivery(run: SmokeRun, step: SmokeStep, secret: string): SmokeDelivery
  /** Linking people's accounts, and commenting and reviewing as them (docs/talk-back.md); absent: not offered. */
  readonly talkBack?: TalkBack
  /** Where the host reads a CODEOWNERS file and the syntax it reads there (docs/routing.md). */
  readonly codeOwners: CodeOwnersFacts
}

/** What a host's CODEOWNERS dialect allows beyond the shared gitignore-like core. */
export interface CodeOwnersSyntax {
  /** `[Section]`, `^[Section]`, `[Section][N]`, with default owners on the heading line. */
  sections: boolean
  /** `\#file` is a pattern naming a file that starts with `#`. */
  escapedHash: boolean
  /** `!pattern` takes ownership away from what it matches. */
  negation: boolean
  /** `#` after the pattern starts a comment (else the owners written there still count). */
  inlineComments: boolean
}

export interface CodeOwnersFacts {
  /** The paths the host looks at, in its order: the first that exists is the file. */
  locations: readonly string[]
  syntax: CodeOwnersSyntax
  /** What prherald cannot read of it on this host, said by prherald-doctor; absent: nothing. */
  cannot?: string
}

/** A file of a repository at a branch, as the host's API gives it. */
export interface RepositoryFile {
  /** The blob's id where the host gives one, else a digest of the text: what the parsed file is cached by. */
  sha: string
  text: string
}

/** How operator output and messages name things on this host. */
export interface HostWords {
  /** `GitHub`, `Bitbucket`, `GitLab`. */
  name: string
  /** The setup wizard's choice: `GitHub (github.com or GitHub Enterprise Server)`. */
  product: string
  /** `pull request`, or `merge request`. */
  pullRequest: string
  /** Short form before the number: `PR #`, `MR !`. */
  reference: string
  /** What owns repositories: `organisation`, `workspace`, `group`. */
  owner: string
  /** The setup prompt's example: `owner/repo`. */
  repositoryExample: string
}

export interface HostVariables {
  /** The webhook secret (or token) variable: required to run the server. */
  secret: string
  /** The API token variable: optional. */
  token: string
  apiUrl: string
  /** Further optional variables the host reads (documented in its page); never printed with their values. */
  extra: readonly string[]
  /** What each of `extra` is, in a few words, for the commands' --help. */
  extraHelp: Readonly<Record<string, string>>
}

/** Credentials as read from the environment; values are secrets, to be redacted from every log line. */
export interface HostAccess {
  token: string | undefined
  /** Credentials other than a token (a GitHub App), read only by the host's own connect(). */
  other?: OtherCredentials
  /** Host-specific settings of the credentials (Bitbucket's HTTP Basic email). */
  extra: Readonly<Record<string, string | undefined>>
  /** A human line saying how API calls authenticate, for the doctor (`Bearer with an access token`). */
  scheme: string | undefined
}

export interface OtherCredentials {
  /** Their secret values (a private key), for the logger's redaction list. */
  readonly secrets: readonly string[]
}

/** Whether the host has credentials for API calls, whichever kind. */
export function hasCredentials(access: HostAccess): boolean {
  return access.token !== undefined || access.other !== undefined
}

/** Reading a delivery: who sent it (authenticated), which event, which id, and what it means to prherald. */
export interface DeliveryReader {
  /** Header names as the host's delivery log spells them, for answers and log lines. */
  headers: { event: string; delivery: string; auth: string }
  /** Checks the delivery's authentication against every configured secret, in constant time. */
  authenticate(secrets: readonly string[], headers: Headers, body: Uint8Array): boolean
  /**
   * Hosts that authenticate by a header alone (a shared token, not a signature of the body): checks it before
   * the body is read, so a request without it costs no buffered byte. `authenticate` still runs afterwards.
   */
  authenticateHeaders?(secrets: readonly string[], headers: Headers): boolean
  eventName(headers: Headers): string
  /** Stable across the host's own retries of the same delivery. */
  deliveryId(headers: Headers, body: Uint8Array): string
  /** Pure: a parsed, authenticated payload into prherald's events. */
  decode(eventName: string, deliveryId: string, payload: unknown): Delivery
  /** Headers the host sends besides the ones above (smoke deliveries and tests send them too). */
  extraHeaders?: Readonly<Record<string, string>>
}

/** What the checks and create-webhook need to know about the host's webhooks. */
export interface WebhookFacts {
  /** Events prherald decodes; a webhook missing one drops that part of the lifecycle (FAIL). */
  required: readonly string[]
  /** Events used when they come (checks on the message); missing ones are a WARN. */
  optional: readonly string[]
  /** True when the hook sends every event whatever its list says (GitHub's `*`). */
  sendsEverything(events: readonly string[]): boolean
  /** The fix when the repository has no usable webhook. */
  setupFix(target: string): string
  /** The fix when the webhook lacks events. */
  eventsFix(target: string): string
  /** What reading the owner's webhooks needs of the token. */
  ownerHookAccess: string
  /** What creating the repository's webhook needs of the token, in the host's own words (create-webhook, setup). */
  createAccess: string
  /** Hosts whose webhooks prherald cannot create print these steps instead (create-webhook, setup). */
  manualSteps?(owner: string, repo: string, url: string, secretSet: boolean): string[]
}

/** How `users:` and `teams:` key people on this host. */
export interface PeopleFacts {
  /** The key of `users:` for an actor (login, or account id). */
  keyOf(actor: Pick<Actor, 'login' | 'accountId'>): string
  /** Logins that ignore case are stored and looked up lower-cased. */
  caseInsensitive: boolean
  /** What `users:` keys are, for `prherald-config list`. */
  keyDescription: string
  /** What `teams:` keys are (host teams asked to review, or names of Slack user groups for `assign:`), for `prherald-config list`. */
  teamDescription: string | undefined
  /**
   * A review can be requested from a team (GitHub's `requested_teams`), so `owners:` teams get a pull request when
   * asked. false: review requests name people only, and team owners get pull requests from CODEOWNERS alone
   * (prherald-doctor says so). Whether a team's members can be read (`follow: { team }`, `assign:`) is the API's
   * `teamMembers`.
   */
  teamReviewRequests: boolean
  /** slack.lookup_users_by_email works here (the host's API gives a profile's public email). */
  emailLookup: boolean
  /** Why a `users:` key cannot be one of this host's keys (a nickname where an account id is needed); undefined when it can. */
  keyProblem?(key: string): string | undefined
}

export interface PullRequestAddress {
  owner: string
  repo: string
  number: number
}

/** The host's API, for a token. Optional members are capabilities only some hosts have. */
export interface HostApi {
  webhooks: WebhookApi
  /** The changed files of a pull request, for path routing. */
  changedFiles(pr: PullRequestAddress): Promise<ChangedFile[]>
  /** Reconcile's reads for one run, every call through the gate (the host's rate limits). */
  reconcile(gate: HostRateGate, clock: GateClock): HostReconcile
  /** A file at a branch (CODEOWNERS), `ref` absent: at the default branch (doctor); undefined when there is no such file. */
  readFile(at: { owner: string; repo: string; ref?: string | undefined; path: string }): Promise<RepositoryFile | undefined>
  /** A team's members' logins (`follow: { team }`); absent where the host has no teams prherald reads. */
  teamMembers?(owner: string, slug: string): Promise<string[]>
  /**
   * Asks `reviewers` (keys of `users:`: a login, or a Bitbucket account id) to review the pull request, keeping
   * whoever is asked already; asking someone who is asked already changes nothing, so a replay may ask again.
   */
  requestReviewers?(pr: PullRequestAddress, reviewers: readonly string[]): Promise<void>
  /** Creates the repository's webhook or updates the one with the same URL. Absent: `webhook.manualSteps`. */
  upsertWebhook?(spec: WebhookSpec): Promise<{ action: 'created' | 'updated'; id: string }>
  /** A login's public profile email, for slack.lookup_users_by_email. */
  emailOf?(login: string): Promise<string | undefined>
  /**
   * Comments as prherald's own account (thread replies of people who are not linked, `thread_replies:
   * everyone`): needs write access the read-only credentials do not have (docs/talk-back.md names it per host).
   */
  comments?: CommentApi
  /** Hosts whose credentials differ per owner (a GitHub App's installations): how the owner's calls authenticate; throws when they cannot. */
  ownerAccess?(owner: string): Promise<string>
  /**
   * Whether prherald's own credentials may comment on the owner's pull requests (talk-back's `everyone` replies):
   * `granted` undefined where the host does not tell (`says` why). Per owner where `ownerAccess` is, else the
   * same for every owner. Throws when the host cannot be asked.
   */
  commentAccess?(owner: string): Promise<{ granted: boolean | undefined; says: string }>
}

export interface HostReconcile {
  /** The pull request as the host shows it now, in the facts a delivery carries. */
  readPullRequest(pr: PullRequestAddress): Promise<PullRequestFacts>
  /** Hosts with a delivery log: finds the failed deliveries since the last run and asks for them again. */
  missedDeliveries?(options: MissedDeliveriesOptions): Promise<MissedDeliveriesResult>
}

export interface MissedDeliveriesOptions {
  /** Where each hook's mark is kept between runs (the store). */
  store: HookDeliveryMarks
  /** owner/repo of each repository to examine. */
  repositories: readonly string[]
  /** `${PRHERALD_PUBLIC_URL}/webhook/<id>` when set: the hook with exactly this URL is prherald's. */
  hookUrl: string | undefined
  /** Request redeliveries and move each hook's mark; false lists what it would redeliver. */
  redeliver: boolean
}

export interface MissedDelivery {
  repository: string
  hookId: number
  /** The delivery id of the event. */
  guid: string
  /** e.g. pull_request.closed */
  event: string
  deliveredAt: string
  statusCode: number
  /** True once the host accepted the redelivery request. */
  redelivered: boolean
}

export interface MissedDeliveriesResult {
  missed: MissedDelivery[]
  /** Repositories that could not be examined, and why (no prherald webhook, several, an error). */
  problems: Array<{ repository: string; message: string; fix?: string | undefined }>
}

export interface WebhookSpec {
  owner: string
  repo: string
  url: string
  secret: string
}

/** The deliveries a smoke run sends, in order; `closed` is always the last. */
export type SmokeStep = 'opened' | 'approved' | 'merged' | 'closed'

export interface SmokeRun {
  owner: string
  repo: string
  /** Distinguishes this run's message from an earlier run's in the channel. */
  runId: string
  createdAt: string
}

export interface SmokeDelivery {
  headers: Record<string, string>
  body: string
}

/** The values of the credentials, for the logger's redaction list. */
export function gitSecrets(access: HostAccess): string[] {
  return [access.token, ...Object.values(access.extra), ...(access.other?.secrets ?? [])].filter((v): v is string => v !== undefined && v !== '')
}

/** The newest delivery-log entry a reconcile run looked at, per hook: the next run reads back to it. */
export interface HookDeliveryMark {
  deliveredAt: string
  deliveryId: string
}

/** What a host's delivery-log reader needs of the store. */
export interface HookDeliveryMarks {
  hookDeliveryMark(provider: string, hook: string): Promise<HookDeliveryMark | undefined>
  saveHookDeliveryMark(provider: string, hook: string, mark: HookDeliveryMark): Promise<void>
}
