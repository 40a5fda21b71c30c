import type { WebClient } from '@slack/web-api'
import { findInPages, type HistoryLookup } from './find-marked-message.ts'

/** The metadata `event_type` of every reply prherald posts in a message's thread. */
export const REPLY_EVENT_TYPE = 'prherald_thread_reply'

/** What a reply carries in its message metadata, so that the thread tells whether it landed. */
export interface ReplyMarker {
  eventType: string
  /** `pr`: the pull request's key (`github:owner/repo#12`); `reply_key`: the delivery and what the reply tells. */
  payload: { pr: string; reply_key: string }
}

export function replyMarker(prKey: string, replyKey: string): ReplyMarker {
  return { eventType: REPLY_EVENT_TYPE, payload: { pr: prKey, reply_key: replyKey } }
}

/** A thread holds few replies; a lookup reads at most three pages of them. */
const PAGE_SIZE = 100
const PAGES = 3

function matches(metadata: unknown, marker: ReplyMarker): boolean {
  const m = metadata as { event_type?: unknown; event_payload?: { pr?: unknown; reply_key?: unknown } } | undefined
  return m?.event_type === marker.eventType && m.event_payload?.pr === marker.payload.pr && m.event_payload.reply_key === marker.payload.reply_key
}

/**
 * Reads the thread of `threadTs` since `oldest` (`conversations.replies`, with every message's metadata)
 * and returns the ts of the reply carrying `marker`. A token without the history scope is an answer, not
 * an error (see find-marked-message.ts): prherald then replies again, as it does for a post.
 */
export async function findMarkedReply(
  deps: { client: WebClient; call: <T>(run: () => Promise<T>) => Promise<T | undefined> },
  channel: string,
  threadTs: string,
  marker: ReplyMarker,
  oldest: Date,
): Promise<HistoryLookup> {
  return findInPages(channel, (cursor) => deps.call(() => deps.client.conversations.replies({
    channel, ts: threadTs, oldest: (oldest.getTime() / 1000).toFixed(6), limit: PAGE_SIZE, include_all_metadata: true, ...(cursor ? { cursor } : {}),
  })), (m) => m.ts !== threadTs && matches(m.metadata, marker), PAGES)
}
