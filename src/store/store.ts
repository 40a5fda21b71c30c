import type { StoredLifecycle } from '../../machines/decide.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { DirectMessageIntent } from './personal-store.ts'
import type {
  DeliveryStore, DirectMessageStore, HookMarks, IntentStore, JobClaims, MessageStore, PeopleCache, PreferenceStore, SharedWork, SlackRequests,
} from './ports.ts'
import type { TalkBackStore } from './talk-back-store.ts'

/**
 * What prherald keeps, as values: its ports (ports.ts) are implemented once (`create-store.ts`) over SQLite
 * (`sqlite-store.ts`) or PostgreSQL for several replicas (`postgres-store.ts`); hence every method is async.
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
  /** Rows to delete in the same transaction: messages that no longer exist (a smoke test's, once it is done). */
  forget?: ReadonlyArray<PullRequestRef & { channel: string }>
  /**
   * The pull request had activity in these deliveries (its announcement, a review, a comment): every message
   * row it has gets `activity_at` = the commit time, after the rows above are saved. The digest reads it.
   */
  activity?: PullRequestRef
  /** The direct messages the batch gave, before their people look-ups (the sender resolves them). */
  directMessages?: readonly DirectMessageIntent[]
}

/** An open pull request's message, as the digest reads it. */
export interface OpenMessage extends PullRequestRef {
  channel: string
  mentions: string[]
  lifecycle: StoredLifecycle
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
  /** slack_messages rows untouched since the cutoff. */
  messages: number
  /** Applied delivery ids older than it (they only serve duplicate detection; pending ones always stay). */
  deliveries: number
  /** Body digests older than the replay cutoff. */
  bodies: number
  /** Once-per-run claims made before it. */
  runClaims: number
  /** Thread replies recorded before it, and head commits last seen before it. */
  threadRecords: number
  /** Slack's request ids (event_id, trigger_id) taken before the replay cutoff. */
  slackRequests: number
}

/** Everything prherald keeps, every port at once: what the composition roots open and close. */
export interface Store extends DeliveryStore, MessageStore, IntentStore, PeopleCache, DirectMessageStore, PreferenceStore, JobClaims,
  HookMarks, SlackRequests, SharedWork, TalkBackStore {
  close(): Promise<void>
}
