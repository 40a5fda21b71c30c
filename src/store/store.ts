import type { StoredLifecycle } from '../../machines/decide.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { ReviewFormStore } from './review-form-store.ts'
import type { ActionCounts } from './action-count-store.ts'
import type { ReplyCommentStore } from './reply-comment-store.ts'
import type { TalkBackStore } from './talk-back-store.ts'
import type { TurnaroundRecord, TurnaroundStore } from './turnaround-store.ts'
import type { ReminderStore } from './reminder-store.ts'
import type { AssignmentStore } from './assignment-store.ts'
import type { WeeklyPostStore } from './weekly-post-store.ts'

/**
 * What prherald keeps, as values and as the ports below: implemented once (`create-store.ts`) over SQLite
 * (`sqlite-store.ts`) or PostgreSQL for several replicas (`postgres-store.ts`); hence every method that
 * reaches the database is async.
 */

export interface PullRequestRef {
  provider: Provider
  repository: string // owner/repo
  prNumber: number
}

export interface MessageRecord extends PullRequestRef {
  channel: string
  ts: string
  mentions: string[]
  state: string
  lifecycle: StoredLifecycle
  lastDeliveryId: string | null
  /** The emoji names the message carries. */
  reactions: string[]
}

/**
 * The channel and ts of a row that holds a pull request's lifecycle without a Slack message: one that was merged
 * or closed before prherald announced it (state `ended`), kept so that a late `opened` stays silent. The
 * columns are NOT NULL, and '' is never a Slack channel ID nor a ts, so no such row is taken for a message:
 * it gets no Slack call, and cleanup ages it out like any other row.
 */
export const NO_MESSAGE = { channel: '', ts: '' } as const

export const hasMessage = (row: Pick<MessageRecord, 'ts'>): boolean => row.ts !== NO_MESSAGE.ts

export interface StoredMessage extends Omit<MessageRecord, 'reactions'> {
  /** null for a row written before messages recorded their emoji. */
  reactions: string[] | null
  createdAt: number
  touchedAt: number
}

export interface IncomingDelivery {
  provider: Provider
  deliveryId: string
  prKey: string
  /** The decoded event, never the raw payload (stored with its version, src/store/stored-json.ts). */
  event: LifecycleEvent
  /**
   * The raw body it came in (a webhook delivery's; absent for a click or reconcile's own events): recorded
   * only when this body never came under another delivery id (docs/security.md, "Replayed deliveries").
   */
  body?: DeliveryBody
}

export interface DeliveryBody {
  /** SHA-256 of the raw bytes, hex. */
  digest: string
  /** The host's delivery id it came with (a check result's rows add `#<pr>` to theirs). */
  deliveryId: string
}

/**
 * A pending delivery as stored. One written by a newer release, which this one cannot read, comes back with
 * `unreadable` (the stored_version error) instead of its event, so that a caller can leave it and go on.
 */
export type PendingDelivery = Omit<IncomingDelivery, 'event'> & { seq: number; receivedAt: number }
  & ({ event: LifecycleEvent; unreadable?: undefined } | { event?: undefined; unreadable: unknown })

/** For the metrics: how many deliveries are pending, and when the oldest of them arrived (unix ms). */
export interface PendingDeliveryStats {
  /** Pending and not parked. */
  count: number
  oldestReceivedAt: number | undefined
  /** Pending, and parked after too many failed batches (replayed only by prherald-migrate replay-parked). */
  parked: number
}

export interface DeliveryOutcome {
  provider: Provider
  deliveryIds: readonly string[]
  messages: readonly MessageRecord[]
  /**
   * The pull request had activity in these deliveries (its announcement, a review, a comment): every message
   * row it has gets `activity_at` = the commit time, after the rows above are saved. The digest reads it.
   */
  activity?: PullRequestRef
  /** The pull request's turnaround row with this batch's deliveries folded in (only while `insights.enabled`). */
  turnaround?: TurnaroundRecord
  /** The direct messages the batch gave, before their people look-ups (the sender resolves them). */
  directMessages?: readonly DirectMessageIntent[]
}

/** An open pull request's message, as the digest reads it. */
export interface OpenMessage extends Pick<MessageRecord, keyof PullRequestRef | 'channel' | 'mentions' | 'lifecycle'> {
  /** Unix ms of the last activity; a row from before activity was recorded gives its created_at. */
  activityAt: number
}

/**
 * A post about to be made, committed before chat.postMessage is sent (docs/reliability.md, 11.10): the
 * message row to save once the post's ts is known, and the marker the post carries in its metadata.
 */
export interface PostIntent extends Omit<MessageRecord, 'ts'> {
  marker: string
  createdAt: number // unix ms
}

/**
 * A cached answer of slack.lookup_users_by_email for one GitHub login (lower-cased). `failed` (GitHub or
 * Slack did not answer) is kept for a short while too, so an outage costs one call per person, not one per
 * delivery.
 */
export interface PersonLookup {
  /** The host whose login this is: the same login on two hosts is two people. */
  provider: Provider
  login: string
  outcome: 'found' | 'not_found' | 'failed'
  slackUserId: string | undefined
  expiresAt: number // unix ms
}

/**
 * A reply prherald posts in a message's thread, recorded under its key before it is posted (docs/reliability.md,
 * "Thread replies, exactly once"). `ts` null: about to be posted, or the outcome is unknown.
 */
export interface ThreadReply extends PullRequestRef {
  channel: string
  /** The delivery id and what the reply tells of (an event, a reviewer): the same for a replay. */
  replyKey: string
  ts: string | null
  createdAt: number // unix ms
}

/** A direct message waiting to be sent, or sent: one line about one pull request, for one person. */
export interface DirectMessageRecord extends Pick<DirectMessageIntent, 'dmKey' | 'prKey' | 'body' | 'createdAt'> {
  recipient: string
  dueAt: number
  /** The gathered message this row went out in (or is going out in): its metadata carries it. */
  batch?: string | undefined
  batchAt?: number | undefined
  outcome?: 'sent' | 'dropped' | undefined
  channel?: string | undefined
  ts?: string | undefined
}

export interface PersonPreference {
  directMessages?: 'on' | 'off' | undefined
  workingHours?: string | undefined
}

/** A direct message as its batch gives it, before the people look-ups (who is in a group, when is their morning). */
export interface DirectMessageIntent {
  /** A Slack user, or a Slack user group whose members the sender looks up (stored as `user:<id>`, `group:<id>`). */
  target: { kind: 'user' | 'group'; id: string }
  dmKey: string
  prKey: string
  body: string
  /** Who did it, as a Slack user: not told of their own doing. */
  actorUser: string | undefined
  createdAt: number
}

/** A claim on pending deliveries for one server (docs/architecture.md, "How replicas share the work"). */
export interface DeliveryLease {
  /** The server's replica id: who holds the deliveries. */
  owner: string
  /** How long a lease lasts from now, in ms. */
  leaseMs: number
}

/**
 * A pull request held by this server: calling it releases the hold. `lost` is aborted when the hold ended
 * by itself (PostgreSQL: the lock's connection broke, so its advisory lock is gone); never on SQLite.
 */
export type PullRequestLock = (() => Promise<void>) & { readonly lost: AbortSignal }

/** Which pull requests prherald-reconcile asks the git host about (docs/reconcile.md). */
export interface OpenPullRequestFilter {
  provider: Provider
  /** owner/repo; every repository when absent. */
  repository?: string | undefined
  /** Only pull requests whose rows were touched at or after this time (unix ms): `reconcile.on_start`'s last day. */
  touchedSince?: number | undefined
}

/** The newest entry of a GitHub webhook's delivery log that reconcile has looked at (migration 0009). */
export interface HookDeliveryMark {
  /** delivered_at of that entry, ISO-8601 as GitHub wrote it. */
  deliveredAt: string
  /** Its numeric id in the log, as text. */
  deliveryId: string
}

/** What `JobClaims.forgetBefore` deleted, per kind of row. */
export interface ForgottenRows {
  /** slack_messages rows untouched since the cutoff, and the people rows written with them (pull_request_people). */
  messages: number
  /** Applied delivery ids older than it (they only serve duplicate detection; pending ones always stay). */
  deliveries: number
  /** Body digests older than the replay cutoff. */
  bodies: number
  /** Once-per-run claims made before it, and reviewer assignments decided before it (one claim per pull request). */
  runClaims: number
  /** Thread replies recorded before it, head commits last seen before it, and thread replies' comments (talk-back) last changed before it. */
  threadRecords: number
  /** Slack's request ids (event_id, trigger_id) taken before the replay cutoff. */
  slackRequests: number
  /** Direct messages sent or dropped before the cutoff (one still queued stays, however old). */
  directMessages: number
  /** Review forms expired by now (an hour after they opened), whatever the cutoff. */
  reviewForms: number
  /** People's actions from Slack counted before the cutoff, and the gates of people quiet since (ActionCounts). */
  personActions: number
  /** Turnaround rows unchanged since the `insights.keep_days` cutoff. */
  turnaround: number
}

/**
 * The store by role: each part of prherald asks for the ports it uses (`store: MessageStore & IntentStore`),
 * so that its deps say what it may touch. `Store` is all of them, opened by the composition roots.
 * Every port hands back decoded values: nothing above src/store/ parses a stored column.
 */

/** Deliveries as the intake records them, and the pending ones as the server replays, retries and parks them. */
export interface DeliveryStore {
  /**
   * Writes the delivery durably; false when this provider already sent this delivery id, or (with `body`)
   * when the same body came before under another delivery id. With `head`, the pull request's head commit is
   * recorded (as saveHead does) in the same transaction, duplicate or not: the intake's acknowledgement then
   * waits for one commit, not two.
   */
  recordDelivery(delivery: IncomingDelivery, head?: { pr: PullRequestRef; sha: string }): Promise<boolean>
  /** An event as the store hands it back once stored: what a batch applies of a delivery it did not read back. */
  readBack(event: LifecycleEvent): LifecycleEvent
  /** The delivery id a body (by digest) first came with, while the replay window keeps it. */
  firstDeliveryOfBody(provider: Provider, digest: string): Promise<string | undefined>
  /** Records `sha` as a head commit of the pull request (idempotent; bumps when it was seen). */
  saveHead(pr: PullRequestRef, sha: string): Promise<void>
  /** The pull requests of the repository whose head `sha` is or was, by number. */
  pullRequestsWithHead(provider: Provider, repository: string, sha: string): Promise<number[]>
  pendingDeliveries(): Promise<PendingDelivery[]>
  /** One query: the pending count and the oldest pending delivery's arrival, read at each metrics scrape. */
  pendingDeliveryStats(): Promise<PendingDeliveryStats>
  /**
   * A batch of the pull request failed: counts one more attempt on each of its pending deliveries and parks
   * those that reached `maxAttempts`, in one transaction. Resolves with how many it parked.
   */
  recordFailedBatch(prKey: string, maxAttempts: number): Promise<number>
  /** Un-parks every parked delivery (attempts back to 0); resolves with them, now pending again. */
  replayParked(): Promise<number>
}

/** The pull requests' messages: one row per channel, with the lifecycle it shows. */
export interface MessageStore {
  findMessages(pr: PullRequestRef): Promise<StoredMessage[]>
  /** Pull requests with a message shown as open or draft, each once, by repository then number. */
  openPullRequests(filter: OpenPullRequestFilter): Promise<PullRequestRef[]>
  /** Every message of an open (not draft, not ended) pull request, by channel, then oldest first. */
  openMessages(): Promise<OpenMessage[]>
  /**
   * The open messages of the pull requests `people` (keys of one host's accounts and teams,
   * machines/pull-request-people.ts) are the author of or are waited on by: /prherald mine and the Home tab
   * read a person's pull requests without reading every open message.
   */
  openMessagesOf(provider: string, people: readonly string[]): Promise<OpenMessage[]>
  /** At start-up: keeps the people of open messages written without them (by an earlier version); how many pull requests. */
  keepPeopleOfOpenMessages(): Promise<number>
  countMessages(): Promise<number>
  /** Inserts or replaces the row of one channel; bumps `touched_at`. */
  saveMessage(message: MessageRecord): Promise<void>
  /**
   * Commits what applying deliveries produced, in one transaction: the rows of the pull request's messages
   * (each inserted or replaced, as saveMessage does), the deliveries marked applied and the batch's
   * direct-message intents. A crash before it leaves every one of them pending, to be replayed together.
   */
  commitOutcome(outcome: DeliveryOutcome): Promise<void>
}

/**
 * The outbox's durable intents (src/slack/outbox.ts), one kind per Slack write that creates something:
 * posts, thread replies, and direct messages (whose intent is their batch).
 */
export interface IntentStore {
  /** Records (or replaces) the intent to post in one channel; resolves once it is committed. */
  recordPostIntent(intent: PostIntent): Promise<void>
  /** The pull request's intent in one channel, left by a post whose outcome is not known yet. */
  findPostIntent(pr: PullRequestRef, channel: string): Promise<PostIntent | undefined>
  /** Every intent left, oldest first; read at start-up, before pending deliveries are replayed. */
  postIntents(): Promise<PostIntent[]>
  /** Whether an intent recorded after `since` waits in `channel`: one indexed row, not every intent. */
  postInFlight(channel: string, since: number): Promise<boolean>
  /** The post is in Slack: saves its row (as saveMessage does) and drops the intent, in one transaction. */
  completePostIntent(message: MessageRecord): Promise<void>
  /** The post with this marker is known not to be in Slack: drops the intent (a newer one is kept). */
  dropPostIntent(pr: PullRequestRef, channel: string, marker: string): Promise<void>

  /** The reply recorded under this key in the pull request's message in `channel`, posted or not. */
  findThreadReply(pr: PullRequestRef, channel: string, replyKey: string): Promise<ThreadReply | undefined>
  /** The pull request's reply posted as `ts` in `channel` (a message a person's reply links to), if it is one. */
  threadReplyAt(pr: PullRequestRef, channel: string, ts: string): Promise<ThreadReply | undefined>
  /** Records the intent to post a reply (committed on return); a reply already posted under the key is kept as it is. */
  recordThreadReplyIntent(reply: Omit<ThreadReply, 'ts'>): Promise<void>
  /** The reply is in Slack: saves its ts. */
  completeThreadReply(pr: PullRequestRef, channel: string, replyKey: string, ts: string): Promise<void>
  /** Every reply intent not completed (no ts), oldest first; read at start-up like postIntents. */
  threadReplyIntents(): Promise<ThreadReply[]>
  /** The reply is known not to be in Slack: drops the intent (never a posted reply). */
  dropThreadReplyIntent(pr: PullRequestRef, channel: string, replyKey: string): Promise<void>

  /** Records the batch before it is posted: the intent a lookup starts from. */
  setBatch(recipient: string, owner: string, dmKeys: readonly string[], batch: string, at: number): Promise<void>
  finishBatch(recipient: string, batch: string, outcome: 'sent' | 'dropped', channel: string | null, ts: string | null): Promise<void>
}

/** What prherald keeps of people from the git hosts and Slack, each answer for a while. */
export interface PeopleCache {
  /** The cached look-up of a login, expired or not (the caller compares expiresAt). */
  findPersonLookup(provider: Provider, login: string): Promise<PersonLookup | undefined>
  /** Inserts or replaces the look-up of its login. */
  savePersonLookup(lookup: PersonLookup): Promise<void>
  /**
   * The logins the look-up found to be this Slack user, expired or not (a found match rarely changes; a
   * fresh look-up that finds otherwise replaces it). The cache read backwards, for /prherald and the home tab.
   */
  loginsOfSlackUser(slackUserId: string): Promise<Array<{ provider: Provider; login: string }>>
  /** A cached time zone: `{ timeZone: undefined }` when Slack has none; undefined when not cached or expired. */
  zoneOf(slackUser: string, now: number): Promise<{ timeZone: string | undefined } | undefined>
  saveZone(slackUser: string, timeZone: string | undefined, expiresAt: number): Promise<void>
}

type NewDirectMessage = Omit<DirectMessageRecord, 'batch' | 'batchAt' | 'outcome' | 'channel' | 'ts'>

/** Direct messages from their batch's intent to their sender's claim (docs/notifications.md). */
export interface DirectMessageStore {
  /** Queues each row unless one with its recipient and key exists (sent or not): a replay queues nothing. Returns how many were new. */
  queueDirectMessages(rows: readonly NewDirectMessage[]): Promise<number>
  /** Direct messages batches committed and no sender resolved yet, oldest first (a hundred at most). */
  directMessageIntents(): Promise<DirectMessageIntent[]>
  /** Queues the rows an intent resolved to and drops the intent, in one transaction. */
  resolveDirectMessageIntent(intent: DirectMessageIntent, rows: readonly NewDirectMessage[]): Promise<number>
  /** People with direct messages due at `now` that no sender holds. */
  dueRecipients(now: number): Promise<string[]>
  /** Claims a person's due messages for `owner` until `until`; none when another sender holds them. */
  claimDirectMessages(recipient: string, owner: string, now: number, until: number): Promise<DirectMessageRecord[]>
  releaseDirectMessages(recipient: string, owner: string): Promise<void>
  /** Rows whose batch was written and not finished (a post of unknown outcome), oldest first: for start-up recovery. */
  directMessageBatchesLeft(): Promise<DirectMessageRecord[]>
  directMessagesOf(recipient: string): Promise<DirectMessageRecord[]>
}

/** What people chose: direct messages on or off, working hours, muted pull requests. */
export interface PreferenceStore {
  preferenceOf(slackUser: string): Promise<PersonPreference>
  savePreference(slackUser: string, change: PersonPreference): Promise<void>
  setMuted(slackUser: string, prKey: string, muted: boolean): Promise<void>
  isMuted(slackUser: string, prKey: string): Promise<boolean>
  /** The pull requests (their keys) the person muted, the oldest mute first. */
  mutesOf(slackUser: string): Promise<string[]>
}

/** Scheduled jobs: one run each among every process sharing the database, and the cleanup they make. */
export interface JobClaims {
  /**
   * Claims one run of a scheduled job (`digest:<schedule>`, keyed by the run's local date, say): true for
   * exactly one caller per (job, runKey) among every process sharing the database, false for all others.
   * The claim is never released: a run that fails after claiming is not retried by another process.
   */
  claimRun(job: string, runKey: string): Promise<boolean>
  /**
   * Cleanup, a slice of rows per transaction (src/store/create-store.ts): every row that only served until `cutoff` (unix ms); applied delivery ids
   * and body digests only until `replayCutoff` (the replay window, which may reach further back); review forms
   * until they expired (by the store's clock); turnaround rows until `turnaroundCutoff` (`insights.keep_days`,
   * default `cutoff`). Never touches Slack.
   */
  forgetBefore(cutoff: number, replayCutoff?: number, turnaroundCutoff?: number): Promise<ForgottenRows>
}

/** Where reconcile left off in each webhook's delivery log (a host's missedDeliveries reads and moves it). */
export interface HookMarks {
  /** The mark of one webhook (`owner/repo#<hook id>`), if reconcile has looked at its log before. */
  hookDeliveryMark(provider: Provider, hook: string): Promise<HookDeliveryMark | undefined>
  /** Records (or replaces) a webhook's mark. */
  saveHookDeliveryMark(provider: Provider, hook: string, mark: HookDeliveryMark): Promise<void>
}

/** The inbound pipeline's record of Slack's requests taken: shared by replicas, surviving a restart. */
export interface SlackRequests {
  /**
   * Records one of Slack's requests (`event:<event_id>`, `trigger:<trigger_id>`) as taken; false when it was
   * already (Slack's retry, on any replica, before or after a restart). Committed before it is acted on.
   */
  claimSlackRequest(requestId: string): Promise<boolean>
  /** Its handler failed before it took effect: the request is no longer taken, so Slack's retry is acted on. */
  releaseSlackRequest(requestId: string): Promise<void>
}

/**
 * Work shared between servers on one database. SQLite has one server per file, so there these are trivial
 * (no lock to take, no other server's lease to take over); PostgreSQL coordinates replicas through them.
 */
export interface SharedWork {
  /**
   * True when no other server can accept or apply this database's deliveries (SQLite: the server lock).
   * Then what this server has recorded and handed to its mailboxes is all that is pending, and a batch it
   * knows to be complete need not be read back (src/worker/run-batch.ts).
   */
  readonly soleServer: boolean
  /**
   * Waits until no other server works on this pull request, then holds it until the returned release is
   * called. Never a transaction: Slack calls made while it is held keep no transaction open.
   */
  lockPullRequest(prKey: string): Promise<PullRequestLock>
  /**
   * For a pull request's batch of `batch`'s deliveries, without waiting: 'applied' when none of them is
   * pending any more (another server's batch applied them; no lock is taken), 'held' when another server
   * holds the lock, else the lock. A holder finishes what a 'held' batch was for: once it has given the
   * lock back it reads the pull request's pending deliveries (`onLockReleased`, src/mailbox/create-deliveries.ts),
   * and src/worker/run-batch.ts says why that read cannot miss them. SQLite has no other server: this
   * waits for this process's holder, as lockPullRequest does, and always takes the lock.
   */
  tryLockPullRequest(prKey: string, batch: { provider: Provider; deliveryIds: readonly string[] }): Promise<PullRequestLock | 'applied' | 'held'>
  /**
   * `listener` runs each time this server has given a pull request's lock back, whoever held it here (a
   * batch, a reminder, an intent's recovery), after the release completed; the release waits for it. Only
   * where other servers share the database (PostgreSQL); SQLite never calls it.
   */
  onLockReleased(listener: (prKey: string) => Promise<void>): void
  /** Every pending delivery of one pull request, in arrival order, whichever server accepted it. */
  pendingDeliveriesOf(prKey: string): Promise<PendingDelivery[]>
  /** The ids of those, without reading the deliveries. */
  pendingDeliveryIdsOf(prKey: string): Promise<string[]>
  /** Extends the leases of deliveries this server holds; never takes one another server holds (unexpired). */
  renewLeases(lease: DeliveryLease & { provider: Provider; deliveryIds: readonly string[] }): Promise<void>
  /** Claims up to `limit` pending deliveries whose lease ran out (their server died), in arrival order. */
  claimExpiredDeliveries(lease: DeliveryLease & { limit: number }): Promise<PendingDelivery[]>
}

/** Everything prherald keeps, every port at once: what the composition roots open and close. */
export interface Store extends DeliveryStore, MessageStore, IntentStore, PeopleCache, DirectMessageStore, PreferenceStore, JobClaims,
  HookMarks, SlackRequests, SharedWork, TalkBackStore, ReplyCommentStore, ReviewFormStore, ActionCounts, TurnaroundStore,
  ReminderStore, AssignmentStore, WeeklyPostStore {
  close(): Promise<void>
}
