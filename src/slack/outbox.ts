import { isPrheraldError, PrheraldError } from '../errors.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import type { DirectMessageRecord, IntentStore, MessageRecord, PostIntent, PullRequestRef } from '../store/store.ts'
import { HISTORY_PAGES, postMarker, replyMarker, type HistoryWindow, type PostMarker } from './find-marked-message.ts'
import { lookupDelayMs } from './post-outcome.ts'
import type { SlackMethod } from './rate-limits.ts'
import type { RetryPolicy } from './retry-transient.ts'
import type { ShutdownSleep } from './shutdown-sleep.ts'
import type { SlackClient, SlackMessage } from './slack-client.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import type { PullRequestAddress } from '../hosts/contract.ts'
import type { CommentApi } from '../hosts/talk-back-contract.ts'
import type { ReplyCommentIntent, ReplyCommentRecord, ReplyCommentStore } from '../store/reply-comment-store.ts'
import type { WeeklyPostStore } from '../store/weekly-post-store.ts'
import { lockLostError } from './slack-pacer.ts'

/** A write an earlier run recorded and did not complete (slack/outbox.ts), as the start-up recovery settles it. */
export interface LeftIntent {
  kind: 'post' | 'thread_reply' | 'direct_message' | 'comment'
  facts: LogFields
  /**
   * Takes the intent's lease (the pull request's lock, the person's claim): on PostgreSQL the intent may be a
   * live replica's write in flight. Resolves to its release, or undefined when it was settled meanwhile.
   */
  hold(): Promise<(() => Promise<void>) | undefined>
  find(): Promise<string | undefined>
  complete(ts: string): Promise<void>
  /** Not in Slack after the second look: the intent goes (a direct message's stays for its next claim). */
  drop(): Promise<void>
}

export interface OutboxDeps {
  store: IntentStore & ReplyCommentStore & WeeklyPostStore
  slack: SlackClient
  logger: Logger
  retry: RetryPolicy
  /** The pause before looking for a write whose answer was lost; ends at shutdown (the intent stays). */
  sleep: ShutdownSleep
  /** How long Slack gets to finish a write whose answer was lost: the client timeout (a request may land late). */
  settleMs: number
  now?: () => number
}

/** One Slack call as the caller makes it: through the pacer (its channel's budgets, the batch's lock). */
export type SlackCall = <T>(method: SlackMethod, run: () => Promise<T>) => Promise<T>

/**
 * A search starts this long before the intent was recorded and ends this long after now: this host's clock
 * may be off Slack's either way (a clock off by more than the window missed the post, which was then made
 * twice). The marker in the metadata identifies the write; the window bounds what the search reads.
 */
export const CLOCK_SKEW_MS = 60 * 60_000

/** Where a write made since `since` (this host's clock, unix ms) can be in Slack's history, whatever the skew. */
export function searchWindow(since: number, now = Date.now()): HistoryWindow {
  return { oldest: new Date(since - CLOCK_SKEW_MS), latest: new Date(now + CLOCK_SKEW_MS) }
}

/** One write that creates something in Slack: its durable intent, the call, and how to find what it made. */
interface Creation {
  what: 'post' | 'thread reply' | 'direct message' | 'comment'
  facts: LogFields
  /** The intent an earlier try left (`ts`: it is done); looked for before anything is sent. */
  left: { ts?: string | null; createdAt: number } | undefined
  /** Said when the left intent's write is adopted. */
  leftFacts?: LogFields
  record(createdAt: number): Promise<void>
  /** One call, never retried by the client; through the pacer, which checks the owning lease first. */
  send(): Promise<string>
  find(since: number): Promise<string | undefined>
  complete(ts: string): Promise<void>
  drop(): Promise<void>
  /** A git host's failure as the Slack codes below say it (a comment's create); Slack's own calls need none. */
  classify?: (error: unknown) => unknown
}

export type Outcome = 'posted' | 'adopted' | 'already_posted'

const WORDS: Record<Creation['what'], { unknown: string; adopted: string }> = {
  'post': {
    unknown: 'slack post outcome unknown; looking for it in the channel before posting again',
    adopted: 'slack message found in the channel history; adopting it instead of posting again',
  },
  'thread reply': {
    unknown: 'slack thread reply outcome unknown; looking for it in the thread before replying again',
    adopted: 'slack thread reply found in the thread; adopting it instead of replying again',
  },
  'direct message': {
    unknown: 'direct message outcome unknown; looking for it in the conversation before sending again',
    adopted: 'direct message found in the conversation; adopting it instead of sending again',
  },
  'comment': {
    unknown: 'pull request comment outcome unknown; looking for it at the host before commenting again',
    adopted: 'pull request comment found at the host; adopting it instead of commenting again',
  },
}

export interface PostRequest {
  /** The row saved with the post's ts (the state before the deliveries being applied). */
  row: Omit<MessageRecord, 'ts'>
  message: SlackMessage
  /** The delivery whose post this is; it goes into the message's metadata. */
  deliveryId: string
  facts: LogFields
  call: SlackCall
}

export interface ReplyRequest {
  ref: PullRequestRef
  channel: string
  /**
   * The ts of the pull request's message: the thread. Absent: a notice about the pull request posted in
   * `channel` itself (a channel other than its message's, such as `notify.merged_without_approval`'s).
   */
  threadTs?: string | undefined
  /** The delivery and what the reply tells (machines/thread-events.ts): one reply per key, ever. */
  replyKey: string
  text: string
  /** Blocks besides the text (a mirrored code comment's Reply button): posted as a message in the thread. */
  message?: SlackMessage
  facts: LogFields
  call: SlackCall
}

export interface CommentRequest {
  /** The reply and the account the comment is made as: the intent recorded before the host's call. */
  intent: Omit<ReplyCommentIntent, 'intentAt'>
  /** The reply's row as a try before this one left it (an intent without an id: its outcome unknown). */
  left: ReplyCommentRecord | undefined
  api: CommentApi
  pr: PullRequestAddress
  body: string
  /** In the body: how a create whose answer was lost is found at the host. */
  marker: string
  facts: LogFields
  /** The batch's lock: no call once it may be gone. */
  lost: AbortSignal
}

export interface DirectMessageRequest {
  user: string
  channel: string
  batch: string
  rows: readonly DirectMessageRecord[]
  text: string
  /** The sender's claim on the person's rows (its owner), and whether it still holds: nothing is sent once it may have lapsed. */
  owner: string
  claimHeld: () => boolean
  call: SlackCall
}

export interface DigestRequest {
  channel: string
  /** The digest's run, e.g. its schedule and date: with the part, each post's marker. */
  run: string
  parent: SlackMessage
  /** Posted in the parent's thread, in order. */
  replies: readonly SlackMessage[]
  facts: LogFields
  call: SlackCall
}

export interface WeeklyRequest {
  channel: string
  /** The ISO week: with the channel, the intent's key (weekly_posts). */
  week: string
  /** The message's text (mrkdwn), the file's `initial_comment`. */
  text: string
  chart: { bytes: Uint8Array; filename: string; title: string; altText: string }
  /** The replica's hold on the week's post, and whether it still holds: nothing is shared once it may have lapsed. */
  held: () => boolean
  facts: LogFields
  call: SlackCall
}

/** The metadata every digest post carries: its run and part (`parent`, `reply-1`, …), which a look-up recognises. */
export const DIGEST_EVENT_TYPE = 'prherald_digest'
const digestMarker = (run: string, part: string): PostMarker => ({ eventType: DIGEST_EVENT_TYPE, payload: { pr: 'digest', delivery_id: `${run}:${part}` } })

/** The metadata every direct message carries: its batch, which a look-up recognises. */
/** A notice's one line as a message: the text, and the same text as its one block. */
const noticeMessage = (text: string): SlackMessage => ({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] })

export const DIRECT_MESSAGE_EVENT_TYPE = 'prherald_direct_message'
const directMarker = (batch: string): PostMarker => ({ eventType: DIRECT_MESSAGE_EVENT_TYPE, payload: { pr: 'direct_message', delivery_id: batch } })

/**
 * The one place that makes Slack writes that create something exactly once: the channel post, thread
 * replies, direct messages, the digest and the weekly summary. Each records its intent first; the call goes out once through the pacer
 * (which checks the owning lease: the pull request's lock, or the person's claim); then the intent is
 * completed. A write whose outcome is unknown is never retried blindly: after a pause it is looked for
 * (its metadata carries its marker) and adopted if Slack has it, and only otherwise sent again. An intent an
 * earlier run left is looked for before anything is sent; start-up recovery settles the rest
 * (worker/recover-intents.ts). Slack refusing a write for good drops its intent and throws (slack_permanent).
 */
export function createOutbox(deps: OutboxDeps) {
  const now = deps.now ?? Date.now
  const warned = new Set<string>()
  const cannotSearch = (scope: string, facts: LogFields, message: string) => {
    if (warned.has(scope)) return undefined
    warned.add(scope)
    deps.logger.warn(message, {
      ...facts, scope, fix: `add the ${scope} bot scope to the Slack app (docs/slack-app.md), reinstall it, and set the new SLACK_BOT_TOKEN`,
    })
    return undefined
  }

  async function once(c: Creation): Promise<{ ts: string; outcome: Outcome }> {
    if (c.left?.ts) return { ts: c.left.ts, outcome: 'already_posted' }
    const adopt = async (ts: string, left = false) => {
      await c.complete(ts)
      deps.logger.info(WORDS[c.what].adopted, { ...c.facts, ts, ...(left ? c.leftFacts : {}) })
      return { ts, outcome: 'adopted' as const }
    }
    if (c.left) {
      const ts = await c.find(c.left.createdAt)
      if (ts) return adopt(ts, true)
    }
    const createdAt = now()
    await c.record(createdAt)
    for (let attempt = 1; ; attempt++) {
      try {
        const ts = await c.send()
        await c.complete(ts)
        return { ts, outcome: 'posted' }
      } catch (thrown) {
        const error = c.classify ? c.classify(thrown) : thrown
        if (isPrheraldError(error, 'slack_permanent')) {
          await c.drop() // Slack (or the host) refused it: nothing to look for
          throw thrown
        }
        // Shutdown and other failures leave the intent: it is looked for before the next try, or at start-up.
        if (!isPrheraldError(error, 'slack_outcome_unknown')) throw thrown
        const delayMs = lookupDelayMs(error, attempt, deps.retry, deps.settleMs)
        deps.logger.warn(WORDS[c.what].unknown, { ...c.facts, attempt, delay_ms: delayMs, ...errorFields(error) })
        await deps.sleep.sleep(delayMs)
        const ts = await c.find(createdAt)
        if (ts) return adopt(ts)
      }
    }
  }

  /** A post intent's message in its channel: its ts, or undefined (not there, or not searchable: then posted again). */
  const findPost = async (intent: PostIntent, call: SlackCall, facts: LogFields): Promise<string | undefined> => {
    // Each page is one paced call, retried on its own: a transient failure late in a long search keeps the pages read.
    const found = await deps.slack.findMarkedMessage(intent.channel, postMarker(pullRequestKey(intent), intent.marker), searchWindow(intent.createdAt), (run) => call('conversations.history', run))
    if (!('ts' in found)) return cannotSearch(found.missingScope, { ...facts, channel: intent.channel }, 'slack token cannot read channel history; posting again without looking (the message may show twice)')
    if (found.bounded) deps.logger.warn('slack history search stopped at its bound before the post\'s time; posting again (the message may show twice)', { ...facts, channel: intent.channel, pages: HISTORY_PAGES })
    return found.ts
  }

  /** A thread's reply carrying `replyKey`, made since `since`: its ts, or undefined (not there, or not searchable). */
  const findReply = async (ref: PullRequestRef, channel: string, threadTs: string, replyKey: string, since: number, call: SlackCall, facts: LogFields) => {
    const found = await call('conversations.replies', () => deps.slack.findMarkedReply(channel, threadTs, replyMarker(pullRequestKey(ref), replyKey), new Date(since - CLOCK_SKEW_MS)))
    return 'ts' in found ? found.ts : cannotSearch(found.missingScope, { ...facts, channel }, 'slack token cannot read threads; replying again without looking (the reply may show twice)')
  }

  /** A notice carrying `replyKey` posted in the channel itself since `since`: its ts, or undefined (not there, or not searchable). */
  const findNotice = async (ref: PullRequestRef, channel: string, replyKey: string, since: number, call: SlackCall, facts: LogFields) => {
    const found = await deps.slack.findMarkedMessage(channel, replyMarker(pullRequestKey(ref), replyKey), searchWindow(since), (run) => call('conversations.history', run))
    return 'ts' in found ? found.ts : cannotSearch(found.missingScope, { ...facts, channel }, 'slack token cannot read channel history; posting the notice again without looking (it may show twice)')
  }

  /** A direct message of `batch` in the person's conversation: its ts, or undefined. */
  const findDirectMessage = async (channel: string, batch: string, since: number, call: SlackCall) => {
    const found = await deps.slack.findMarkedMessage(channel, directMarker(batch), searchWindow(since), (run) => call('conversations.history', run))
    return 'ts' in found ? found.ts : cannotSearch(found.missingScope, {}, 'slack token cannot read direct messages; sending again without looking (a message may show twice)')
  }

  return {
    findPost,
    findReply,
    findDirectMessage,
    /**
     * A pull request's message in one channel: its ts, and whether it is an earlier batch's post (an intent
     * left by a batch that failed between its post and saving the ts, found in the channel). That post shows
     * the earlier batch's render (its last delivery is the intent's marker): the caller brings it up to date.
     */
    async post(request: PostRequest): Promise<{ ts: string; earlier: boolean }> {
      const { row, call } = request
      const facts = { ...request.facts, channel: row.channel }
      let intent: PostIntent | undefined = await deps.store.findPostIntent(row, row.channel)
      const left = intent
      let recorded = false
      const { ts, outcome } = await once({
        what: 'post', facts, left: intent, ...(left && left.marker !== request.deliveryId ? { leftFacts: { earlier_batch: true } } : {}),
        record: async (createdAt) => {
          recorded = true
          intent = { ...row, marker: request.deliveryId, createdAt }
          await deps.store.recordPostIntent(intent)
        },
        send: () => call('chat.postMessage', () => deps.slack.postMessage(row.channel, request.message, postMarker(pullRequestKey(row), request.deliveryId))),
        find: (since) => findPost({ ...intent!, createdAt: since }, call, facts),
        complete: (ts) => deps.store.completePostIntent({ ...row, ts }),
        drop: () => deps.store.dropPostIntent(row, row.channel, intent!.marker),
      })
      return { ts, earlier: outcome === 'adopted' && !recorded && left!.marker !== request.deliveryId }
    },
    /** One reply in a pull request's thread, at most once per key across replays, timeouts and crashes. */
    async reply(request: ReplyRequest): Promise<Outcome> {
      const { ref, channel, replyKey, call } = request
      const facts = { ...request.facts, channel, reply_key: replyKey }
      const left = await deps.store.findThreadReply(ref, channel, replyKey)
      return (await once({
        what: 'thread reply', facts, left,
        record: (createdAt) => deps.store.recordThreadReplyIntent({ ...ref, channel, replyKey, createdAt }),
        send: () => call('chat.postMessage', () => request.message || request.threadTs === undefined
          ? deps.slack.postMessage(channel, request.message ?? noticeMessage(request.text), replyMarker(pullRequestKey(ref), replyKey), request.threadTs)
          : deps.slack.postReply(channel, request.threadTs, request.text, replyMarker(pullRequestKey(ref), replyKey))),
        find: (since) => (request.threadTs === undefined
          ? findNotice(ref, channel, replyKey, since, call, facts)
          : findReply(ref, channel, request.threadTs, replyKey, since, call, facts)),
        complete: (ts) => deps.store.completeThreadReply(ref, channel, replyKey, ts),
        drop: () => deps.store.dropThreadReplyIntent(ref, channel, replyKey),
      })).outcome
    },
    /**
     * A thread reply's comment on its pull request, created once: the intent (reply_comments) first, then the
     * host's call, then its id. A refusal drops the intent and throws the host's error; a failure after which
     * the comment may exist is looked for by its marker before the next try (and at start-up).
     */
    async comment(request: CommentRequest): Promise<{ ts: string; outcome: Outcome }> {
      const { intent, api, pr, lost } = request
      const { channel, replyTs } = intent
      const left = request.left && { ts: request.left.commentId ?? null, createdAt: request.left.intentAt }
      return once({
        what: 'comment', facts: request.facts, left,
        record: (createdAt) => deps.store.recordReplyIntent({ ...intent, intentAt: createdAt }),
        async send() {
          if (lost.aborted) throw lockLostError(lost)
          return (await api.createComment(pr, request.body)).id
        },
        find: (since) => api.findComment(pr, request.marker, since - CLOCK_SKEW_MS),
        complete: (id) => deps.store.completeReplyComment(channel, replyTs, id),
        drop: () => deps.store.dropReplyIntent(channel, replyTs),
        classify: hostOutcome,
      })
    },
    /**
     * One channel's digest: the parent, then each reply in its thread. Its intent is the channel's claim for
     * the day (`digest-channel:<channel>`, job_runs), committed by the caller before this: a run that stopped
     * half-way is not posted again. A post whose answer was lost is looked for by its marker before it is
     * sent again, as every creating write is.
     */
    async digest(request: DigestRequest): Promise<void> {
      const { channel, run, call } = request
      const nothingToKeep = async () => undefined
      const parentTs = (await once({
        what: 'post', facts: { ...request.facts, channel }, left: undefined, record: nothingToKeep, complete: nothingToKeep, drop: nothingToKeep,
        send: () => call('chat.postMessage', () => deps.slack.postMessage(channel, request.parent, digestMarker(run, 'parent'))),
        find: async (since) => {
          const found = await deps.slack.findMarkedMessage(channel, digestMarker(run, 'parent'), searchWindow(since), (page) => call('conversations.history', page))
          return 'ts' in found ? found.ts : cannotSearch(found.missingScope, { channel }, 'slack token cannot read channel history; posting the digest again without looking (it may show twice)')
        },
      })).ts
      for (const [i, reply] of request.replies.entries()) {
        const marker = digestMarker(run, `reply-${i + 1}`)
        await once({
          what: 'thread reply', facts: { ...request.facts, channel }, left: undefined, record: nothingToKeep, complete: nothingToKeep, drop: nothingToKeep,
          send: () => call('chat.postMessage', () => deps.slack.postMessage(channel, reply, marker, parentTs)),
          find: async (since) => {
            const found = await call('conversations.replies', () => deps.slack.findMarkedReply(channel, parentTs, marker, new Date(since - CLOCK_SKEW_MS)))
            return 'ts' in found ? found.ts : cannotSearch(found.missingScope, { channel }, 'slack token cannot read threads; replying again without looking (the reply may show twice)')
          },
        })
      }
    },
    /**
     * A channel's weekly summary: its chart uploaded and shared with the text as its message, once per channel
     * and week. Its intent is the week's row (weekly_posts), which the caller holds: the upload's start is
     * recorded, then its file; a share whose answer was lost (or that a replica which died left) is looked for
     * in the channel by its file before anything is sent again. Slack refusing it for good ends the week's post.
     */
    async weekly(request: WeeklyRequest): Promise<Outcome> {
      const { channel, week, call, chart } = request
      const facts = { ...request.facts, channel, week }
      const left = await deps.store.weeklyPostOf(channel, week)
      if (left?.doneAt != null) return 'already_posted'
      let fileId = left?.fileId ?? null
      const lapsed = () => new Error('the hold on the weekly post lapsed before the share: another replica may be making it')
      return (await once({
        what: 'post', facts, left: left?.intentAt == null ? undefined : { createdAt: left.intentAt },
        record: (createdAt) => {
          fileId = null
          return deps.store.recordWeeklyIntent(channel, week, createdAt)
        },
        async send() {
          if (!request.held()) throw lapsed()
          const upload = await call('files.getUploadURLExternal', () => deps.slack.startUpload({ filename: chart.filename, length: chart.bytes.length, altText: chart.altText }))
          const id = upload.fileId
          fileId = id
          await deps.store.recordWeeklyFile(channel, week, id)
          await deps.slack.sendUpload(upload.uploadUrl, chart.bytes)
          if (!request.held()) throw lapsed()
          await call('files.completeUploadExternal', () => deps.slack.completeUpload(id, chart.title, channel, request.text))
          return id
        },
        find: async (since) => {
          // No file recorded: the upload never got as far as a share.
          if (fileId === null) return undefined
          const found = await deps.slack.findSharedFile(channel, fileId, searchWindow(since, now()), (page) => call('conversations.history', page))
          return 'ts' in found ? found.ts : cannotSearch(found.missingScope, facts, 'slack token cannot read channel history; sharing the weekly summary again without looking (it may show twice)')
        },
        complete: () => deps.store.finishWeeklyPost(channel, week, 'posted', now()),
        drop: () => deps.store.finishWeeklyPost(channel, week, 'refused', now()),
      })).outcome
    },
    /** One gathered direct message (a batch of a person's rows, already claimed). */
    async directMessage(request: DirectMessageRequest): Promise<string> {
      const { user, channel, batch, call } = request
      const batchAt = request.rows[0]?.batch === batch ? request.rows[0].batchAt : undefined
      const { ts } = await once({
        what: 'direct message', facts: { slack_user: user, lines: request.rows.length },
        left: batchAt === undefined || batchAt === null ? undefined : { createdAt: batchAt },
        record: (createdAt) => deps.store.setBatch(user, request.owner, request.rows.map((r) => r.dmKey), batch, createdAt),
        send: () => {
          // The claim is this write's lease: once it may have lapsed, another sender may be sending these lines.
          if (!request.claimHeld()) throw new Error('the claim on this person\'s direct messages lapsed before the send')
          return call('chat.postMessage', () => deps.slack.postMessage(channel, { text: request.text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: request.text } }] }, directMarker(batch)))
        },
        find: (since) => findDirectMessage(channel, batch, since, call),
        complete: (ts) => deps.store.finishBatch(user, batch, 'sent', channel, ts),
        drop: () => deps.store.finishBatch(user, batch, 'dropped', null, null),
      })
      return ts
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>

/**
 * A host's failure of a comment's create in the outbox's terms: refused for good (the host's answer says why:
 * the intent goes, nothing to look for) or of unknown outcome (no answer, or a 5xx: the comment may exist).
 * (A rate limit is `git_host` too: the look-up after the pause finds nothing, and the create is tried again.)
 */
function hostOutcome(error: unknown): unknown {
  if (isPrheraldError(error, 'git_host')) {
    return new PrheraldError('slack_outcome_unknown', 'the host\'s answer to the comment was lost', { cause: error })
  }
  const refused = ['git_host_refused', 'git_host_auth', 'git_host_scope', 'git_host_not_found'].some((code) => isPrheraldError(error, code as 'git_host_refused'))
  return refused ? new PrheraldError('slack_permanent', 'the host refused the comment', { cause: error }) : error
}
