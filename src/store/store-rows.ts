import type { Provider } from '../../machines/pull-request-event.ts'
import { readStoredEvent, readStoredLifecycle } from './stored-json.ts'
import type { OpenMessage, PendingDelivery, PersonLookup, PostIntent, PullRequestRef, StoredMessage, ThreadReply } from './store.ts'

/**
 * The rows both backends read, column for column, and how a row becomes what the Store interface returns:
 * JSON columns are decoded here, the versioned ones (lifecycle, event) by their versioned readers.
 * Times are unix milliseconds: SQLite hands them back as numbers, pg as strings (BIGINT may exceed 2^53;
 * unix milliseconds never do), hence `number | string` and `Number()`.
 */
type Millis = number | string

/** The columns that name a pull request's row in one channel. */
interface ChannelRow {
  provider: Provider
  repository: string
  pr_number: number
  channel: string
}

export interface MessageRow extends ChannelRow {
  ts: string
  mentions: string
  state: string
  lifecycle: string
  last_delivery_id: string | null
  reactions: string | null
  created_at: Millis
  touched_at: Millis
}

export interface IntentRow extends Omit<MessageRow, 'ts' | 'reactions' | 'touched_at'> {
  marker: string
}

export type PullRequestRow = Pick<MessageRow, 'provider' | 'repository' | 'pr_number'>

export const refFromRow = (r: PullRequestRow): PullRequestRef => ({ provider: r.provider, repository: r.repository, prNumber: Number(r.pr_number) })

export function messageFromRow(r: MessageRow): StoredMessage {
  return {
    provider: r.provider, repository: r.repository, prNumber: r.pr_number, channel: r.channel, ts: r.ts, mentions: JSON.parse(r.mentions) as string[],
    state: r.state, lifecycle: readStoredLifecycle(r.lifecycle), lastDeliveryId: r.last_delivery_id,
    reactions: r.reactions === null ? null : JSON.parse(r.reactions) as string[], createdAt: Number(r.created_at), touchedAt: Number(r.touched_at),
  }
}

export function intentFromRow(r: IntentRow): PostIntent {
  return {
    provider: r.provider, repository: r.repository, prNumber: r.pr_number, channel: r.channel, marker: r.marker,
    mentions: JSON.parse(r.mentions) as string[], state: r.state, lifecycle: readStoredLifecycle(r.lifecycle), lastDeliveryId: r.last_delivery_id,
    createdAt: Number(r.created_at),
    reactions: [], // a message is posted without reactions; they are added after it, once its ts is known
  }
}

export interface OpenMessageRow extends Pick<MessageRow, keyof ChannelRow | 'mentions' | 'lifecycle'> {
  activity_at: Millis
}

export function openMessageFromRow(r: OpenMessageRow): OpenMessage {
  return {
    provider: r.provider, repository: r.repository, prNumber: r.pr_number, channel: r.channel,
    mentions: JSON.parse(r.mentions) as string[], lifecycle: readStoredLifecycle(r.lifecycle), activityAt: Number(r.activity_at),
  }
}

/** person_lookups; expires_at comes back as a string from PostgreSQL's BIGINT, hence Number(). */
export interface PersonLookupRow {
  provider: string
  login: string
  outcome: string
  slack_user_id: string | null
  expires_at: number | string
}

export function personLookupFromRow(r: PersonLookupRow): PersonLookup {
  const outcome = r.outcome === 'found' || r.outcome === 'not_found' ? r.outcome : 'failed'
  return { provider: r.provider, login: r.login, outcome, slackUserId: r.slack_user_id ?? undefined, expiresAt: Number(r.expires_at) }
}

export interface ThreadReplyRow extends ChannelRow {
  reply_key: string
  ts: string | null
  created_at: Millis
}

export function threadReplyFromRow(r: ThreadReplyRow): ThreadReply {
  return { provider: r.provider, repository: r.repository, prNumber: r.pr_number, channel: r.channel, replyKey: r.reply_key, ts: r.ts, createdAt: Number(r.created_at) }
}

export interface DeliveryRow {
  seq: Millis // a BIGINT identity in PostgreSQL, handed back as a string like the times
  provider: Provider
  delivery_id: string
  pr_key: string
  event: string
  received_at: Millis
}

export function deliveryFromRow(r: DeliveryRow): PendingDelivery {
  const delivery = { seq: Number(r.seq), provider: r.provider, deliveryId: r.delivery_id, prKey: r.pr_key, receivedAt: Number(r.received_at) }
  try {
    return { ...delivery, event: readStoredEvent(r.event) }
  } catch (unreadable) {
    return { ...delivery, unreadable }
  }
}
