import type { ServerResponse } from 'node:http'
import { sendJson, startHttpFake, type RecordedRequest } from './http-fake.ts'
import type { SlackLimitGate } from './slack-limit-gate.ts'

export interface SlackMessageState {
  channel: string
  ts: string
  text: string
  blocks: unknown[]
  reactions: Set<string>
  updates: number
  /** The message metadata posted with it (`event_type`, `event_payload`), if any. */
  metadata?: unknown
  /** Set for a reply: the ts of the thread's parent message. */
  threadTs?: string
  /** The files a files.completeUploadExternal shared with this message (history lists them in `files`). */
  files?: Array<{ id: string; title: string; name: string }>
  /** A reply posted with `reply_broadcast: true` (also shown in the channel). */
  broadcast?: boolean
}

/** A view as views.publish sent it; Slack hands `private_metadata` back in the view's block_actions. */
export interface HomeView {
  type: string
  blocks: unknown[]
  private_metadata?: string
}

/** What the fake answers for one call instead of success: an HTTP status, a Slack error, a delay or hold, or a reset. */
export type SlackFault =
  | { status: number; headers?: Record<string, string> }
  | { error: string }
  | { delayMs: number }
  | { reset: true }
  /** The call is carried out, then the answer is lost: never sent (`hang`, the client times out) or the connection reset. */
  | { lostAnswer: 'hang' | 'reset' }
  /** Answers (normally) only once `until` settles: holds a call for exactly as long as a test needs. */
  | { until: Promise<unknown> }
  /** The call is carried out at once (a post shows in the channel) and its answer held until `answerAfter` settles. */
  | { answerAfter: Promise<unknown> }

/** A workspace member (or a guest, or someone of another workspace) as users.info answers for them. */
export interface FakeSlackUser {
  tz?: string
  realName?: string
  /** What the person set as their display name (anyone can set any). */
  displayName?: string
  /** Their own workspace; T0ACME, the bot's, unless said. */
  teamId?: string
  /** A multi-channel (`is_restricted`) or single-channel (`is_ultra_restricted`) guest. */
  guest?: 'multi' | 'single'
  /** users.getPresence's answer for another user: "either active or away"; active unless said. */
  presence?: 'active' | 'away'
  /** The custom status users.profile.get gives (`status_text`, `status_emoji`, `status_expiration` in unix seconds, 0 never ends). */
  status?: { text: string; emoji: string; expiration?: number }
}

/** One file of the fake's upload flow (docs.slack.dev files.getUploadURLExternal, files.completeUploadExternal). */
export interface FakeSlackFile {
  filename: string
  length: number
  altText: string | undefined
  /** What was POSTed to its upload URL; undefined until then. */
  bytes: Buffer | undefined
  /** Where files.completeUploadExternal shared it, and its message's ts; undefined until completed. */
  shared: { channel: string; ts: string; title: string } | undefined
}

export interface FakeSlack {
  url: string
  /** API calls in arrival order (method name, e.g. `chat.postMessage`, and parsed body). */
  calls: Array<{ method: string; body: Record<string, unknown>; headers: RecordedRequest['headers'] }>
  messages: Map<string, SlackMessageState>
  /** Faults consumed one per matching call, in order. */
  faults: Array<{ method: string; channel?: string; fault: SlackFault }>
  /** Slack errors answered for every call to a channel (e.g. channel_not_found). */
  channelErrors: Map<string, string>
  /** Delay added to every successful answer. */
  latencyMs: number
  /** Scopes reported in the x-oauth-scopes header of auth.test. */
  scopes: string[]
  /** conversations.info answers; a channel missing here is channel_not_found. */
  channels: Map<string, { is_archived?: boolean; is_member?: boolean; name?: string }>
  /** Workspace members by email, for users.lookupByEmail (which needs the users:read.email scope, as in Slack). */
  usersByEmail: Map<string, string>
  /**
   * users.info answers by user id, as Slack's user object has it (`tz`, `real_name`, the profile's
   * `display_name` each person sets, `team_id`, the guest flags); a user missing here is user_not_found.
   */
  users: Map<string, FakeSlackUser>
  /** usergroups.users.list answers by user-group id. */
  groups: Map<string, string[]>
  /** What apps.connections.open answers (a fake Socket Mode server's ws:// URL); a closed port when unset. */
  socketUrl: string | undefined
  /** The app-level token the app has; another well-formed xapp- token is answered invalid_auth, as Slack does. Any, when unset. */
  appToken: string | undefined
  /** The home tab views.publish last published per user. */
  views: Map<string, HomeView>
  /** Modals by view id: what views.open opened, replaced by each views.update (`updates` counts them). */
  modals: Map<string, { user?: string; view: Record<string, unknown>; updates: number }>
  /**
   * Files by id as files.getUploadURLExternal created them: the bytes POSTed to their upload URL (another
   * server than the API's, as files.slack.com is), and the channel files.completeUploadExternal shared them in.
   */
  files: Map<string, FakeSlackFile>
  /** The upload server's requests (a POST of bytes per upload), in arrival order. */
  uploads: Array<{ path: string; bytes: Buffer }>
  /** Faults for the upload server's POSTs, one consumed per upload: an HTTP status, or a hold until the promise settles. */
  uploadFaults: Array<{ status: number } | { until: Promise<unknown> }>
  /** Called for every API call (the demo prints them). */
  onCall: ((method: string, body: Record<string, unknown>) => void) | undefined
  /** The channel's messages, without thread replies (as a reader sees the channel). */
  messagesIn(channel: string): SlackMessageState[]
  /** The replies in the thread of `ts`, oldest first. */
  repliesTo(channel: string, ts: string): SlackMessageState[]
  count(method: string): number
  close(): Promise<void>
}

function parseMetadata(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) as unknown : value
}

/** The history scope the fake requires for conversations.history, by the channel ID's first letter. */
const historyScope = (channel: string) => channel.startsWith('D') ? 'im:history' : channel.startsWith('G') ? 'groups:history' : 'channels:history'

/** Slack's sizes: a text object holds at most 3000 characters, a message's `text` 40,000. */
export const FAKE_SLACK_LIMITS = { blockText: 3000, messageText: 40_000 } as const

/**
 * The error Slack answers for a message over its sizes, if any: `msg_too_long` for the text, `invalid_blocks`
 * for a section's text, a section field or a context element over 3000 characters.
 */
export function sizeError(text: string, blocks: unknown[]): string | undefined {
  if (text.length > FAKE_SLACK_LIMITS.messageText) return 'msg_too_long'
  const tooLong = (t: unknown) => typeof t === 'object' && t !== null && String((t as { text?: unknown }).text ?? '').length > FAKE_SLACK_LIMITS.blockText
  for (const block of blocks as Array<Record<string, unknown>>) {
    const parts = [block.text, ...(Array.isArray(block.fields) ? block.fields : []), ...(Array.isArray(block.elements) ? block.elements : [])]
    if (parts.some(tooLong)) return 'invalid_blocks'
  }
  return undefined
}

function parseBlocks(value: unknown): unknown[] {
  if (typeof value === 'string') return JSON.parse(value) as unknown[]
  return Array.isArray(value) ? value : []
}

export interface FakeSlackOptions {
  /** conversations.info answers for any channel id, not only those in `channels`. */
  anyChannel?: boolean
  /** Opt in to a Slack that enforces its rate limits, answering 429 with Retry-After past them. */
  limits?: SlackLimitGate
  /** The one bot token accepted, as Slack accepts only its own: any other is answered invalid_auth. Unset: any. */
  token?: string
  /** The port on 127.0.0.1; unset: a free one. */
  port?: number
  /** The token's scopes (auth.test's x-oauth-scopes); unset: the posting scopes only, as most tests need. */
  scopes?: string[]
}

/**
 * The scopes of a bot token of the app created from docs/slack-app.md's manifest, written out: what the
 * stand-in Slack (npm run fake-slack, demo, dev) hands out, so prherald-doctor finds nothing missing there.
 */
export const MANIFEST_SCOPES: readonly string[] = [
  'chat:write', 'reactions:write', 'channels:read', 'groups:read', 'channels:history', 'groups:history',
  'commands', 'im:write', 'im:history', 'users:read', 'usergroups:read', 'users.profile:read', 'files:write',
]

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  // Like Slack's: the time of posting in seconds with six decimals, unique and increasing (history's
  // oldest/latest bounds compare against it).
  let lastMicros = 0
  const nextTs = () => {
    lastMicros = Math.max(Date.now() * 1000, lastMicros + 1)
    return `${Math.floor(lastMicros / 1e6)}.${String(lastMicros % 1e6).padStart(6, '0')}`
  }
  const state = {
    calls: [] as FakeSlack['calls'],
    messages: new Map<string, SlackMessageState>(),
    faults: [] as FakeSlack['faults'],
    channelErrors: new Map<string, string>(),
    latencyMs: 0,
    scopes: options.scopes ? [...options.scopes] : ['chat:write', 'reactions:write', 'channels:read', 'groups:read', 'channels:history', 'groups:history'],
    channels: new Map<string, { is_archived?: boolean; is_member?: boolean; name?: string }>(),
    usersByEmail: new Map<string, string>(),
    users: new Map<string, FakeSlackUser>(),
    groups: new Map<string, string[]>(),
    views: new Map<string, HomeView>(),
    modals: new Map<string, { view: Record<string, unknown>; updates: number }>(),
    onCall: undefined as FakeSlack['onCall'],
    socketUrl: undefined as string | undefined,
    appToken: undefined as string | undefined,
    files: new Map<string, FakeSlackFile>(),
    uploads: [] as FakeSlack['uploads'],
    uploadFaults: [] as FakeSlack['uploadFaults'],
  }
  // Slack's upload URL is on another host than its API (files.slack.com/upload/v1/…): the fake's is another server.
  const uploadServer = await startHttpFake(async (req, res) => {
    const id = /^\/upload\/v1\/(F[A-Z0-9]+)$/.exec(req.path)?.[1]
    state.uploads.push({ path: req.path, bytes: req.raw })
    const fault = state.uploadFaults.shift()
    if (fault && 'until' in fault) await fault.until.catch(() => {})
    else if (fault) return void res.writeHead(fault.status).end('')
    const file = id ? state.files.get(id) : undefined
    if (req.method !== 'POST' || !file) return void res.writeHead(404).end('')
    // docs.slack.dev files.getUploadURLExternal: "Slack will return HTTP 200 if the upload is successful".
    file.bytes = req.raw
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${req.raw.length}`)
  })
  let fileCount = 0

  const answer = async (method: string, body: Record<string, unknown>, res: ServerResponse) => {
    const channel = typeof body.channel === 'string' ? body.channel : undefined
    const retryAfter = options.limits?.check(method, channel)
    if (retryAfter !== undefined) return sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) })
    const faultIndex = state.faults.findIndex((f) => f.method === method && (f.channel === undefined || f.channel === channel))
    let lostAnswer: 'hang' | 'reset' | undefined
    let answerAfter: Promise<unknown> | undefined
    if (faultIndex >= 0) {
      const fault = state.faults.splice(faultIndex, 1)[0]!.fault
      if ('reset' in fault) return void res.socket?.destroy()
      if ('status' in fault) return void res.writeHead(fault.status, fault.headers ?? {}).end('')
      if ('error' in fault) return sendJson(res, 200, { ok: false, error: fault.error })
      if ('lostAnswer' in fault) lostAnswer = fault.lostAnswer
      else if ('answerAfter' in fault) answerAfter = fault.answerAfter
      else if ('until' in fault) await fault.until.catch(() => {})
      else await new Promise((r) => setTimeout(r, fault.delayMs))
    }
    if (lostAnswer) {
      // Carry the call out against a response that goes nowhere, then lose the answer.
      const nowhere = { writeHead: () => nowhere, end: () => nowhere } as unknown as ServerResponse
      await carryOut(method, body, channel, nowhere)
      if (lostAnswer === 'reset') res.socket?.destroy()
      return
    }
    if (answerAfter) {
      // Carry the call out against a response that keeps what it is told, then tell it once the test lets it.
      let status = 200
      let head: Record<string, string> = {}
      let text = ''
      const kept = { writeHead: (s: number, h?: Record<string, string>) => ((status = s), (head = h ?? {}), kept), end: (b?: string) => ((text = b ?? ''), kept) }
      await carryOut(method, body, channel, kept as unknown as ServerResponse)
      await answerAfter.catch(() => {})
      return void res.writeHead(status, head).end(text)
    }
    if (state.latencyMs > 0) await new Promise((r) => setTimeout(r, state.latencyMs))
    return carryOut(method, body, channel, res)
  }

  const carryOut = async (method: string, body: Record<string, unknown>, channel: string | undefined, res: ServerResponse) => {
    const channelError = channel ? state.channelErrors.get(channel) : undefined
    if (channelError) return sendJson(res, 200, { ok: false, error: channelError })

    if (method === 'chat.postMessage' || method === 'chat.update') {
      const refused = sizeError(String(body.text ?? ''), parseBlocks(body.blocks))
      if (refused) return sendJson(res, 200, { ok: false, error: refused })
    }

    switch (method) {
      case 'chat.postMessage': {
        // A reply names its parent in thread_ts; Slack answers thread_not_found for a parent it does not have.
        const threadTs = body.thread_ts === undefined ? undefined : String(body.thread_ts)
        if (threadTs !== undefined && state.messages.get(threadTs)?.channel !== channel) return sendJson(res, 200, { ok: false, error: 'thread_not_found' })
        const ts = nextTs()
        const metadata = body.metadata === undefined ? {} : { metadata: parseMetadata(body.metadata) }
        const thread = threadTs === undefined ? {} : { threadTs, broadcast: String(body.reply_broadcast) === 'true' }
        state.messages.set(ts, { channel: channel ?? '', ts, text: String(body.text ?? ''), blocks: parseBlocks(body.blocks), reactions: new Set(), updates: 0, ...metadata, ...thread })
        return sendJson(res, 200, { ok: true, channel, ts })
      }
      case 'conversations.replies': {
        // The parent first, then its replies oldest first; oldest/latest exclusive (never dropping the parent),
        // `limit` a page with an offset as cursor, metadata with include_all_metadata, scopes as for history.
        if (channel && state.channels.get(channel)?.is_member === false) return sendJson(res, 200, { ok: false, error: 'not_in_channel' })
        const needed = historyScope(channel ?? '')
        if (!state.scopes.includes(needed)) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed, provided: state.scopes.join(',') })
        const parent = state.messages.get(String(body.ts))
        if (!parent || parent.channel !== channel || parent.threadTs !== undefined) return sendJson(res, 200, { ok: false, error: 'thread_not_found' })
        const oldest = body.oldest === undefined ? 0 : Number(body.oldest)
        const latest = body.latest === undefined ? Infinity : Number(body.latest)
        const withMetadata = String(body.include_all_metadata) === 'true'
        const replies = [...state.messages.values()]
          .filter((m) => m.channel === channel && m.threadTs === parent.ts && Number(m.ts) > oldest && Number(m.ts) < latest)
          .sort((a, b) => a.ts.localeCompare(b.ts))
        const all = [parent, ...replies]
        const start = Number(body.cursor ?? 0)
        const limit = Number(body.limit ?? 1000)
        const page = all.slice(start, start + limit).map((m) => ({
          type: 'message', ts: m.ts, text: m.text, bot_id: 'B123', thread_ts: parent.ts,
          ...(withMetadata && m.metadata !== undefined ? { metadata: m.metadata } : {}),
        }))
        const more = start + limit < all.length
        return sendJson(res, 200, { ok: true, messages: page, has_more: more, response_metadata: { next_cursor: more ? String(start + limit) : '' } })
      }
      case 'conversations.history': {
        // As Slack pages it (docs.slack.dev conversations.history; slack-api-docs issue 4): oldest/latest
        // exclusive; with `latest` (or neither) the `limit` messages closest to latest, newest first, the cursor
        // going further back; with `oldest` alone the ones closest to oldest, the cursor going forward. The
        // cursor is opaque and anchored on a message, so posts made between pages move nothing. Reactions in
        // Slack's shape. A channel listed in `channels` with is_member false answers not_in_channel.
        if (channel && state.channels.get(channel)?.is_member === false) return sendJson(res, 200, { ok: false, error: 'not_in_channel' })
        const needed = historyScope(channel ?? '')
        if (!state.scopes.includes(needed)) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed, provided: state.scopes.join(',') })
        const oldest = body.oldest === undefined ? 0 : Number(body.oldest)
        const latest = body.latest === undefined ? Infinity : Number(body.latest)
        const forward = body.oldest !== undefined && body.latest === undefined
        const withMetadata = String(body.include_all_metadata) === 'true'
        const [direction, anchor] = body.cursor ? Buffer.from(String(body.cursor), 'base64').toString().split(':') : []
        // Thread replies are not in a channel's history (unless broadcast), as in Slack.
        const all = [...state.messages.values()]
          .filter((m) => m.channel === channel && (m.threadTs === undefined || m.broadcast) && Number(m.ts) > oldest && Number(m.ts) < latest)
          .filter((m) => anchor === undefined || (direction === 'after' ? m.ts > anchor : m.ts < anchor))
          .sort((a, b) => forward ? a.ts.localeCompare(b.ts) : b.ts.localeCompare(a.ts))
        const limit = Number(body.limit ?? 100)
        const taken = all.slice(0, limit)
        const page = (forward ? [...taken].reverse() : taken).map((m) => ({
          type: 'message', ts: m.ts, text: m.text, bot_id: 'B123',
          reactions: [...m.reactions].map((name) => ({ name, count: 1, users: ['U0BOT'] })),
          ...(m.files ? { files: m.files.map((f) => ({ id: f.id, title: f.title, name: f.name, mimetype: 'image/png' })), upload: true } : {}),
          ...(withMetadata && m.metadata !== undefined ? { metadata: m.metadata } : {}),
        }))
        const more = all.length > limit
        const next = more ? Buffer.from(`${forward ? 'after' : 'before'}:${taken.at(-1)!.ts}`).toString('base64') : ''
        return sendJson(res, 200, { ok: true, messages: page, has_more: more, response_metadata: { next_cursor: next } })
      }
      case 'chat.update': {
        const message = state.messages.get(String(body.ts))
        if (!message || message.channel !== channel) return sendJson(res, 200, { ok: false, error: 'message_not_found' })
        message.text = String(body.text ?? '')
        message.blocks = parseBlocks(body.blocks)
        message.updates++
        return sendJson(res, 200, { ok: true, channel, ts: message.ts })
      }
      case 'reactions.add':
      case 'reactions.remove': {
        const message = state.messages.get(String(body.timestamp))
        if (!message || message.channel !== channel) return sendJson(res, 200, { ok: false, error: 'message_not_found' })
        const name = String(body.name)
        if (method === 'reactions.add') {
          if (message.reactions.has(name)) return sendJson(res, 200, { ok: false, error: 'already_reacted' })
          message.reactions.add(name)
        } else {
          if (!message.reactions.delete(name)) return sendJson(res, 200, { ok: false, error: 'no_reaction' })
        }
        return sendJson(res, 200, { ok: true })
      }
      case 'chat.postEphemeral':
        // Only the user sees it: nothing lands in the channel (tests read `calls`).
        return sendJson(res, 200, { ok: true, message_ts: nextTs() })
      case 'chat.delete': {
        const message = state.messages.get(String(body.ts))
        if (!message || message.channel !== channel) return sendJson(res, 200, { ok: false, error: 'message_not_found' })
        state.messages.delete(message.ts)
        return sendJson(res, 200, { ok: true, channel, ts: message.ts })
      }
      case 'conversations.list':
      case 'users.conversations': {
        // Paginated with cursor/limit like Slack; users.conversations lists only the channels the bot is in.
        const all = [...state.channels.entries()]
          .filter(([, info]) => !info.is_archived && (method === 'conversations.list' || info.is_member !== false))
          .map(([id, info]) => ({ id, name: info.name ?? id.toLowerCase(), is_private: id.startsWith('G'), is_archived: false, is_member: info.is_member ?? true }))
        const start = Number(body.cursor || 0)
        const limit = Number(body.limit ?? 100)
        const next = start + limit < all.length ? String(start + limit) : ''
        return sendJson(res, 200, { ok: true, channels: all.slice(start, start + limit), response_metadata: { next_cursor: next } })
      }
      case 'users.lookupByEmail': {
        if (!state.scopes.includes('users:read.email')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'users:read.email', provided: state.scopes.join(',') })
        const id = state.usersByEmail.get(String(body.email ?? ''))
        return id ? sendJson(res, 200, { ok: true, user: { id, name: id.toLowerCase(), deleted: false } }) : sendJson(res, 200, { ok: false, error: 'users_not_found' })
      }
      // The personal side's methods, with the scopes Slack asks for each.
      case 'conversations.open': {
        if (!state.scopes.includes('im:write')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'im:write', provided: state.scopes.join(',') })
        const user = String(body.users ?? '')
        if (!state.users.has(user)) return sendJson(res, 200, { ok: false, error: 'user_not_found' })
        return sendJson(res, 200, { ok: true, channel: { id: `D${user.slice(1)}` } })
      }
      case 'users.info': {
        if (!state.scopes.includes('users:read')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'users:read', provided: state.scopes.join(',') })
        const user = state.users.get(String(body.user ?? ''))
        if (!user) return sendJson(res, 200, { ok: false, error: 'user_not_found' })
        // docs.slack.dev/reference/methods/users.info: "Returns a user object"; the profile holds real_name and display_name too.
        const realName = user.realName ?? ''
        return sendJson(res, 200, {
          ok: true,
          user: {
            id: body.user, team_id: user.teamId ?? 'T0ACME', name: String(body.user).toLowerCase(), deleted: false, real_name: realName,
            ...(user.tz ? { tz: user.tz } : {}),
            is_bot: false, is_restricted: user.guest === 'multi', is_ultra_restricted: user.guest === 'single',
            ...(user.teamId && user.teamId !== 'T0ACME' ? { is_stranger: true } : {}),
            profile: { real_name: realName, real_name_normalized: realName, display_name: user.displayName ?? '', display_name_normalized: user.displayName ?? '', team: user.teamId ?? 'T0ACME' },
          },
        })
      }
      case 'users.getPresence': {
        // docs.slack.dev/reference/methods/users.getPresence: for another user, only `presence`, "either active or away".
        if (!state.scopes.includes('users:read')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'users:read', provided: state.scopes.join(',') })
        const user = state.users.get(String(body.user ?? ''))
        if (!user) return sendJson(res, 200, { ok: false, error: 'user_not_found' })
        return sendJson(res, 200, { ok: true, presence: user.presence ?? 'active' })
      }
      case 'users.profile.get': {
        // "Retrieve a user's profile information, including their custom status" (scope users.profile:read).
        if (!state.scopes.includes('users.profile:read')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'users.profile:read', provided: state.scopes.join(',') })
        const user = state.users.get(String(body.user ?? ''))
        if (!user) return sendJson(res, 200, { ok: false, error: 'user_not_found' })
        const status = user.status ?? { text: '', emoji: '' }
        return sendJson(res, 200, { ok: true, profile: { real_name: user.realName ?? '', display_name: user.displayName ?? '', status_text: status.text, status_emoji: status.emoji, status_expiration: status.expiration ?? 0 } })
      }
      case 'usergroups.users.list': {
        if (!state.scopes.includes('usergroups:read')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'usergroups:read', provided: state.scopes.join(',') })
        const members = state.groups.get(String(body.usergroup ?? ''))
        return members ? sendJson(res, 200, { ok: true, users: members }) : sendJson(res, 200, { ok: false, error: 'no_such_subteam' })
      }
      case 'views.publish': {
        const user = String(body.user_id ?? '')
        if (!state.users.has(user)) return sendJson(res, 200, { ok: false, error: 'user_not_found' })
        const view = typeof body.view === 'string' ? JSON.parse(body.view) as HomeView : body.view as HomeView
        state.views.set(user, view)
        return sendJson(res, 200, { ok: true, view: { id: `V${user}` } })
      }
      case 'views.open': {
        // A trigger_id is good once (and for 3 s, which the fake does not keep).
        const trigger = String(body.trigger_id ?? '')
        if (trigger === '' || state.calls.some((c, i) => i < state.calls.length - 1 && c.method === 'views.open' && c.body.trigger_id === trigger)) {
          return sendJson(res, 200, { ok: false, error: trigger === '' ? 'invalid_arguments' : 'expired_trigger_id' })
        }
        const id = `VMODAL${state.modals.size + 1}`
        state.modals.set(id, { view: typeof body.view === 'string' ? JSON.parse(body.view) as Record<string, unknown> : body.view as Record<string, unknown>, updates: 0 })
        return sendJson(res, 200, { ok: true, view: { id } })
      }
      case 'views.update': {
        const modal = state.modals.get(String(body.view_id ?? ''))
        if (!modal) return sendJson(res, 200, { ok: false, error: 'not_found' })
        modal.view = typeof body.view === 'string' ? JSON.parse(body.view) as Record<string, unknown> : body.view as Record<string, unknown>
        modal.updates++
        return sendJson(res, 200, { ok: true, view: { id: body.view_id } })
      }
      case 'auth.test':
        return sendJson(res, 200, { ok: true, url: 'https://acme.slack.com/', team: 'Acme', team_id: 'T0ACME', app_id: 'A0PRHERALD', user: 'prherald', bot_id: 'B123', user_id: 'U0BOT' },
          { 'x-oauth-scopes': state.scopes.join(',') })
      case 'apps.connections.open': {
        // Only an app-level token opens a socket, as in Slack; the URL is never dialled by the checks.
        const token = String(state.calls.at(-1)?.headers.authorization ?? '').replace(/^Bearer /, '')
        if (!token.startsWith('xapp-')) return sendJson(res, 200, { ok: false, error: 'not_allowed_token_type' })
        if (state.appToken !== undefined && token !== state.appToken) return sendJson(res, 200, { ok: false, error: 'invalid_auth' })
        return sendJson(res, 200, { ok: true, url: state.socketUrl ?? 'ws://127.0.0.1:9/link/?ticket=fake' })
      }
      case 'files.getUploadURLExternal': {
        // docs.slack.dev/reference/methods/files.getUploadURLExternal: `filename` and `length` required; it "returns an
        // upload URL and a file ID". The scope is files:write (files.completeUploadExternal's prerequisites name it).
        if (!state.scopes.includes('files:write')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'files:write', provided: state.scopes.join(',') })
        const length = Number(body.length)
        if (typeof body.filename !== 'string' || body.filename === '' || !Number.isInteger(length) || length <= 0) return sendJson(res, 200, { ok: false, error: 'invalid_arguments' })
        const id = `F0UPLOAD${++fileCount}`
        state.files.set(id, { filename: body.filename, length, altText: typeof body.alt_txt === 'string' ? body.alt_txt : undefined, bytes: undefined, shared: undefined })
        return sendJson(res, 200, { ok: true, upload_url: `${uploadServer.url}/upload/v1/${id}`, file_id: id })
      }
      case 'files.completeUploadExternal': {
        // docs.slack.dev/reference/methods/files.completeUploadExternal: `files` "Array of file ids and their
        // corresponding (optional) titles" (a form's JSON string, as the Web API client sends it), `channel_id` where it
        // is shared, `initial_comment` "The message text introducing the file"; "This method can only be called once"
        // (the reference names no error for a second call: the fake refuses it as a file it cannot complete).
        if (!state.scopes.includes('files:write')) return sendJson(res, 200, { ok: false, error: 'missing_scope', needed: 'files:write', provided: state.scopes.join(',') })
        const listed = (typeof body.files === 'string' ? JSON.parse(body.files) : body.files) as Array<{ id?: string; title?: string }> | undefined
        const target = typeof body.channel_id === 'string' ? body.channel_id : undefined
        const files = (listed ?? []).map((f) => ({ ...f, file: state.files.get(String(f.id)) }))
        if (files.length === 0 || files.some((f) => !f.file || f.file.bytes === undefined || f.file.shared)) return sendJson(res, 200, { ok: false, error: 'file_not_found' })
        if (target && state.channelErrors.get(target)) return sendJson(res, 200, { ok: false, error: state.channelErrors.get(target) })
        if (target && state.channels.get(target)?.is_member === false) return sendJson(res, 200, { ok: false, error: 'not_in_channel' })
        if (target) {
          const ts = nextTs()
          const shared = files.map((f) => ({ id: String(f.id), title: f.title ?? f.file!.filename, name: f.file!.filename }))
          state.messages.set(ts, { channel: target, ts, text: String(body.initial_comment ?? ''), blocks: [], reactions: new Set(), updates: 0, files: shared })
          for (const f of files) f.file!.shared = { channel: target, ts, title: f.title ?? f.file!.filename }
        }
        return sendJson(res, 200, { ok: true, files: files.map((f) => ({ id: f.id, title: f.title ?? f.file!.filename })) })
      }
      case 'conversations.info': {
        const info = channel ? (state.channels.get(channel) ?? (options.anyChannel ? {} : undefined)) : undefined
        if (!info) return sendJson(res, 200, { ok: false, error: 'channel_not_found' })
        return sendJson(res, 200, { ok: true, channel: { id: channel, name: info.name ?? 'general', is_archived: info.is_archived ?? false, is_member: info.is_member ?? true } })
      }
      default:
        return sendJson(res, 200, { ok: false, error: 'unknown_method' })
    }
  }

  const fake = await startHttpFake(async (req, res) => {
    const method = req.path.replace(/^\/(api\/)?/, '')
    state.calls.push({ method, body: req.body, headers: req.headers })
    state.onCall?.(method, req.body)
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}` && req.body.token !== options.token) {
      return sendJson(res, 200, { ok: false, error: 'invalid_auth' })
    }
    await answer(method, req.body, res)
  }, options.port)

  return Object.assign(state, {
    url: `${fake.url}/api/`,
    messagesIn: (channel: string) => [...state.messages.values()].filter((m) => m.channel === channel && m.threadTs === undefined),
    repliesTo: (channel: string, ts: string) =>
      [...state.messages.values()].filter((m) => m.channel === channel && m.threadTs === ts).sort((a, b) => a.ts.localeCompare(b.ts)),
    count: (method: string) => state.calls.filter((c) => c.method === method).length,
    close: async () => { await Promise.all([fake.close(), uploadServer.close()]) },
  })
}
