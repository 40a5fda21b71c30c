import type { WebClient } from '@slack/web-api'
import { isPrheraldError } from '../errors.ts'

/** The metadata `event_type` of every message prherald posts (Slack asks for a readable, snake_case name). */
export const POST_EVENT_TYPE = 'prherald_pull_request'

/** The metadata `event_type` of every reply prherald posts in a message's thread. */
export const REPLY_EVENT_TYPE = 'prherald_thread_reply'

/**
 * What a write carries in its message metadata so that it can be recognised in the history: a post `pr` (the
 * pull request's key, `github:owner/repo#12`) and `delivery_id` (the delivery that announced it); a thread
 * reply `pr` and `reply_key` (the delivery and what the reply tells); a direct message its batch.
 */
export interface PostMarker {
  eventType: string
  payload: Record<string, string>
}

export function postMarker(prKey: string, deliveryId: string): PostMarker {
  return { eventType: POST_EVENT_TYPE, payload: { pr: prKey, delivery_id: deliveryId } }
}

export function replyMarker(prKey: string, replyKey: string): PostMarker {
  return { eventType: REPLY_EVENT_TYPE, payload: { pr: prKey, reply_key: replyKey } }
}

/**
 * The marked post's ts (undefined: not in the history searched; `bounded`: the search stopped at its page
 * bound before the end of its window), or the scope the token lacks to search.
 */
export type HistoryLookup = { ts: string | undefined; bounded?: boolean } | { missingScope: string }

/** The time range a history search reads, on Slack's clock (message ts). */
export interface HistoryWindow { oldest: Date; latest: Date }

/** Runs one page's request: the caller paces and retries each page on its own (a search is many calls). */
export type PageCall = <T>(run: () => Promise<T>) => Promise<T>

/**
 * Slack recommends at most 200 a page. The window, not a page count, bounds a search: HISTORY_PAGES only
 * stops one that would read more than 5,000 messages (over an hour of a channel at Slack's one post a second).
 */
const HISTORY_PAGE_SIZE = 200
export const HISTORY_PAGES = 25

/** The history scope a channel needs, when Slack's answer does not name it: by the ID's first letter. */
export function historyScope(channel: string): string {
  if (channel.startsWith('D')) return 'im:history'
  if (channel.startsWith('G')) return 'groups:history'
  return 'channels:history'
}

function matches(metadata: unknown, marker: PostMarker): boolean {
  const m = metadata as { event_type?: unknown; event_payload?: Record<string, unknown> } | undefined
  return m?.event_type === marker.eventType && Object.entries(marker.payload).every(([key, value]) => m.event_payload?.[key] === value)
}

const slackTs = (at: Date) => (at.getTime() / 1000).toFixed(6)

/**
 * Reads the channel's history in `window`, newest first, with every message's metadata
 * (`include_all_metadata`), and returns the ts of the message carrying `marker`. Both ends are given: with
 * `oldest` alone Slack returns the messages closest to `oldest` (paging forward), so a busy channel's recent
 * post would be the last one read. `call` classifies errors as the client's other calls do; a token without
 * the history scope is an answer here, not an error, because prherald then degrades to posting again.
 */
export async function findMarkedMessage(
  deps: { client: WebClient; call: <T>(run: () => Promise<T>) => Promise<T | undefined> },
  channel: string,
  marker: PostMarker,
  window: HistoryWindow,
  page: PageCall = (run) => run(),
): Promise<HistoryLookup> {
  return findInHistory(deps, channel, window, page, (m) => matches(m.metadata, marker))
}

/** The channel's history in `window`, newest first with every message's metadata, searched for the message `isMarked` accepts. */
function findInHistory(
  deps: { client: WebClient; call: <T>(run: () => Promise<T>) => Promise<T | undefined> },
  channel: string,
  window: HistoryWindow,
  page: PageCall,
  isMarked: Parameters<typeof findInPages>[2],
): Promise<HistoryLookup> {
  const range = { oldest: slackTs(window.oldest), latest: slackTs(window.latest) }
  return findInPages(channel, (cursor) => page(() => deps.call(() => deps.client.conversations.history({
    channel, ...range, limit: HISTORY_PAGE_SIZE, include_all_metadata: true, ...(cursor ? { cursor } : {}),
  }))), isMarked, HISTORY_PAGES)
}

/**
 * Reads the channel's history in `window`, as findMarkedMessage does, for the message that shares the file
 * `fileId` (a file shared with files.completeUploadExternal is a message with the file in its `files`; the
 * upload itself can carry no metadata).
 */
export async function findSharedFile(
  deps: { client: WebClient; call: <T>(run: () => Promise<T>) => Promise<T | undefined> },
  channel: string,
  fileId: string,
  window: HistoryWindow,
  page: PageCall = (run) => run(),
): Promise<HistoryLookup> {
  return findInHistory(deps, channel, window, page, (m) => (m.files ?? []).some((f) => f.id === fileId))
}

/**
 * Reads the thread of `threadTs` since `oldest` (`conversations.replies`, with every message's metadata, at
 * most three pages of 100: a thread holds few replies) and returns the ts of the reply carrying `marker`.
 */
export async function findMarkedReply(
  deps: { client: WebClient; call: <T>(run: () => Promise<T>) => Promise<T | undefined> },
  channel: string,
  threadTs: string,
  marker: PostMarker,
  oldest: Date,
): Promise<HistoryLookup> {
  return findInPages(channel, (cursor) => deps.call(() => deps.client.conversations.replies({
    channel, ts: threadTs, oldest: slackTs(oldest), limit: 100, include_all_metadata: true, ...(cursor ? { cursor } : {}),
  })), (m) => m.ts !== threadTs && matches(m.metadata, marker), 3)
}

/** One page of `conversations.history` or `conversations.replies`, as far as a search reads it. */
export type MessagePage = {
  messages?: Array<{ ts?: string; metadata?: unknown; files?: Array<{ id?: string }> }>
  has_more?: boolean
  response_metadata?: { next_cursor?: string }
} | undefined

/**
 * Reads at most `pages` pages through `read` (a history or a thread) and returns the ts of the first message
 * `isMarked` accepts; `bounded` when it stopped with pages left. A token without the history scope is an
 * answer (`missingScope`), not an error: the caller then posts again.
 */
export async function findInPages(
  channel: string,
  read: (cursor: string | undefined) => Promise<MessagePage>,
  isMarked: (message: { ts?: string; metadata?: unknown; files?: Array<{ id?: string }> }) => boolean,
  pages: number,
): Promise<HistoryLookup> {
  let cursor: string | undefined
  for (let page = 0; page < pages; page++) {
    let answer
    try {
      answer = await read(cursor)
    } catch (error) {
      const data = isPrheraldError(error, 'slack_permanent') ? (error.cause as { data?: { error?: unknown; needed?: unknown } } | undefined)?.data : undefined
      if (data?.error === 'missing_scope') return { missingScope: typeof data.needed === 'string' ? data.needed : historyScope(channel) }
      throw error
    }
    const found = answer?.messages?.find(isMarked)
    if (found?.ts) return { ts: found.ts }
    cursor = answer?.response_metadata?.next_cursor
    if (!answer?.has_more || !cursor) return { ts: undefined }
  }
  return { ts: undefined, bounded: true }
}
