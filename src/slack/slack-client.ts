import { ErrorCode, type RetryOptions, type WebClient } from '@slack/web-api'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { createWebClient, postFileBytes } from './slack-api.ts'
import { classifySlackError } from './classify-slack-error.ts'
import type { Logger } from '../log/logger.ts'
import { findMarkedMessage, findMarkedReply, findSharedFile, type HistoryLookup, type HistoryWindow, type PageCall, type PostMarker } from './find-marked-message.ts'
import { mayHavePosted } from './post-outcome.ts'
import type { SlackTokenObserver } from './slack-token-state.ts'

export interface SlackMessage {
  text: string
  blocks: unknown[]
}

/**
 * The calls the lifecycle makes. Errors are PrheraldErrors:
 * slack_transient, slack_rate_limited, slack_permanent, slack_message_not_found, slack_auth, and for
 * postMessage slack_outcome_unknown (the post may be in the channel).
 */
export interface SlackClient {
  /**
   * Posts once, never retried inside the client; `marker` goes into the message's metadata. With `threadTs`
   * the message is a reply in that message's thread (the digest's list).
   */
  postMessage(channel: string, message: SlackMessage, marker?: PostMarker, threadTs?: string): Promise<string>
  /** Looks through the channel's history in `window` for the post carrying `marker`, each page through `page` (see find-marked-message.ts). */
  findMarkedMessage(channel: string, marker: PostMarker, window: HistoryWindow, page?: PageCall): Promise<HistoryLookup>
  /**
   * Replies in the thread of `threadTs`, never broadcast to the channel; like postMessage, never retried
   * inside the client, and slack_outcome_unknown when the reply may be in the thread.
   */
  postReply(channel: string, threadTs: string, text: string, marker: PostMarker): Promise<string>
  /** Looks through the thread of `threadTs` for the reply carrying `marker` (see find-marked-message.ts). */
  findMarkedReply(channel: string, threadTs: string, marker: PostMarker, oldest: Date): Promise<HistoryLookup>
  updateMessage(channel: string, ts: string, message: SlackMessage): Promise<void>
  /** chat.delete of a message the bot posted (a mirrored comment deleted at the host); one already gone is slack_message_not_found. */
  deleteMessage(channel: string, ts: string): Promise<void>
  addReaction(channel: string, ts: string, name: string): Promise<void>
  /** chat.postEphemeral: a note only `user` sees, in the thread of `threadTs` (talk-back's answers to a reply). */
  postEphemeral(channel: string, user: string, text: string, threadTs?: string): Promise<void>
  removeReaction(channel: string, ts: string, name: string): Promise<void>
  /** users.lookupByEmail: the member's user id, or undefined when no member has that email (users_not_found). */
  lookupUserByEmail(email: string): Promise<string | undefined>
  /** conversations.open: the direct-message channel between the bot and `user` (im:write). */
  openConversation(user: string): Promise<string>
  /** users.info (users:read): who a Slack user is, as their workspace's record says (not what an event carries). */
  userInfo(user: string): Promise<SlackPerson>
  /** usergroups.users.list: the members of a user group (usergroups:read). */
  groupMembers(group: string): Promise<string[]>
  /**
   * users.getPresence (users:read): docs.slack.dev/reference/methods/users.getPresence, "When requesting
   * information for a different user, this method just returns the current presence (either active or away)".
   */
  presence(user: string): Promise<'active' | 'away'>
  /**
   * users.profile.get (users.profile:read, "Retrieve a user's profile information, including their custom
   * status"): the profile's `status_text`, `status_emoji` and `status_expiration` (unix seconds, 0: never).
   */
  status(user: string): Promise<SlackStatus>
  /** views.publish: the person's App Home tab; a change like chat.update, never retried here. */
  publishHome(user: string, view: HomeView): Promise<void>
  /**
   * views.open: a modal for the click whose trigger_id it is (valid for 3 s, once), never retried here; the
   * view's id, for views.update. An answer to one request, so outside the outbox and the pacer.
   */
  openView(triggerId: string, view: ModalView): Promise<string>
  /** views.update: replaces the modal `viewId` names (the outcome of what it submitted), never retried here. */
  updateView(viewId: string, view: ModalView): Promise<void>
  /**
   * files.getUploadURLExternal (files:write): where to send a file's bytes and the id it will have. Nothing is
   * shared yet: docs.slack.dev, "If files.completeUploadExternal is not called, the upload will be aborted".
   */
  startUpload(file: { filename: string; length: number; altText: string }): Promise<{ uploadUrl: string; fileId: string }>
  /** The bytes POSTed to the upload URL (slack-api.ts postFileBytes). */
  sendUpload(uploadUrl: string, bytes: Uint8Array): Promise<void>
  /**
   * files.completeUploadExternal: shares the uploaded file in `channel`, `comment` its message's text. Never
   * retried here (Slack: "This method can only be called once"); slack_outcome_unknown when it may have been shared.
   */
  completeUpload(fileId: string, title: string, channel: string, comment: string): Promise<void>
  /** Looks through the channel's history in `window` for the message sharing `fileId` (see find-marked-message.ts). */
  findSharedFile(channel: string, fileId: string, window: HistoryWindow, page?: PageCall): Promise<HistoryLookup>
}

/**
 * A Slack user as users.info tells it (docs.slack.dev/reference/methods/users.info: "Returns a user object";
 * `is_restricted` a multi-channel guest, `is_ultra_restricted` a single-channel one, `is_stranger` someone of
 * another workspace met in a shared channel, `team_id` their own workspace).
 */
export interface SlackPerson {
  id: string
  /** `real_name` (or the profile's), undefined when the person left it empty. */
  realName: string | undefined
  /** The IANA time zone of the person's profile, undefined when Slack has none. */
  timeZone: string | undefined
  teamId: string | undefined
  /** A guest of the workspace (multi- or single-channel), or a stranger from another one. */
  guest: boolean
}

/** A person's custom status as users.profile.get gives it; '' and 0 when unset. */
export interface SlackStatus {
  text: string
  emoji: string
  /** Unix seconds the status ends at; 0: it does not end by itself. */
  expiration: number
}

/** The personal side's reads (person-directory.ts, send-direct-messages.ts). */
export type SlackDirectory = Pick<SlackClient, 'openConversation' | 'userInfo' | 'groupMembers'>

export type HomeView = { type: 'home'; blocks: unknown[]; private_metadata?: string }

/** A modal (docs.slack.dev, "Modal view payload"); `private_metadata` carries only an id the server looks up. */
export interface ModalView {
  type: 'modal'
  callback_id?: string
  title: { type: 'plain_text'; text: string }
  submit?: { type: 'plain_text'; text: string }
  close?: { type: 'plain_text'; text: string }
  blocks: unknown[]
  private_metadata?: string
}

export interface SlackClientOptions {
  token: string
  apiUrl: string
  logger: Logger
  /** Retries inside one call (5xx, network). A 429 is not retried here: the pacer holds and retries it. */
  retry?: RetryOptions
  timeoutMs?: number
  /** Told when Slack refuses the token itself, and when a call goes through again (for /healthz). */
  tokenObserver?: SlackTokenObserver
}

const DEFAULT_SLACK_RETRY: RetryOptions = { retries: 3, factor: 2, minTimeout: 1000, maxTimeout: 10_000, randomize: true }

export function createSlackClient(options: SlackClientOptions): SlackClient {
  const settings = { token: options.token, apiUrl: options.apiUrl, logger: options.logger, timeoutMs: options.timeoutMs }
  // Built by src/slack/slack-api.ts like every Slack client: the shared fetch, our logger, a 429 refused, not waited out.
  const client = createWebClient({ ...settings, retry: options.retry ?? DEFAULT_SLACK_RETRY })
  // Every change gets a client of its own that never retries: Slack has no idempotency key, so a post
  // retried after a timeout or a reset can land twice, and an update retried after its batch's lock was lost
  // landed over what the replica then holding the pull request had written (chaos run, PostgreSQL). The
  // caller retries a change through the pacer, which checks the batch's lock first; a failed post goes back
  // to the outbox, which looks for it before posting again. (A 429 is refused before posting.) Reads retry here.
  const changer = createWebClient({ ...settings, retry: { retries: 0 } })
  const call = async <T>(run: () => Promise<T>): Promise<T | undefined> => {
    try {
      const result = await run()
      options.tokenObserver?.accepted()
      return result
    } catch (error) {
      // A post's unknown outcome is already classified (postMessage below); everything else is the client's error.
      const classified = isPrheraldError(error) ? error : classifySlackError(error)
      if (classified?.code === 'slack_auth') options.tokenObserver?.refused(String((error as { data?: { error?: unknown } }).data?.error), classified.fix)
      // Any other answer from Slack (a channel's refusal included) means it took the token.
      else if ((error as { code?: unknown }).code === ErrorCode.PlatformError) options.tokenObserver?.accepted()
      if (classified) throw classified
      return undefined
    }
  }
  /** One chat.postMessage, never retried here: a failure after which it may be in Slack is slack_outcome_unknown. */
  const postOnce = async (args: Parameters<WebClient['chat']['postMessage']>[0]): Promise<string> => {
    // Through `call` like every other method, so a 429 and a refused token are classified and observed the
    // same way; only a failure after which the post may be in the channel is told apart first.
    const result = await call(async () => {
      try {
        return await changer.chat.postMessage(args)
      } catch (error) {
        if (!mayHavePosted(error)) throw error
        throw new PrheraldError('slack_outcome_unknown', `Slack: chat.postMessage outcome unknown (${error instanceof Error ? error.message : String(error)})`, { cause: error })
      }
    })
    if (!result?.ts) throw new PrheraldError('slack_outcome_unknown', 'Slack: chat.postMessage returned no ts')
    return result.ts
  }
  return {
    async postMessage(channel, message, marker, threadTs) {
      const metadata = marker ? { metadata: { event_type: marker.eventType, event_payload: { ...marker.payload } } } : {}
      return postOnce({ channel, text: message.text, blocks: message.blocks as never, unfurl_links: false, ...metadata, ...(threadTs ? { thread_ts: threadTs } : {}) })
    },
    async postReply(channel, threadTs, text, marker) {
      const metadata = { event_type: marker.eventType, event_payload: { ...marker.payload } }
      return postOnce({ channel, thread_ts: threadTs, reply_broadcast: false, text, unfurl_links: false, metadata })
    },
    findMarkedReply: (channel, threadTs, marker, oldest) => findMarkedReply({ client, call }, channel, threadTs, marker, oldest),
    findMarkedMessage: (channel, marker, window, page) => findMarkedMessage({ client, call }, channel, marker, window, page),
    async updateMessage(channel, ts, message) {
      await call(() => changer.chat.update({ channel, ts, text: message.text, blocks: message.blocks as never }))
    },
    async deleteMessage(channel, ts) {
      await call(() => changer.chat.delete({ channel, ts }))
    },
    async addReaction(channel, ts, name) {
      await call(() => changer.reactions.add({ channel, timestamp: ts, name }))
    },
    async postEphemeral(channel, user, text, threadTs) {
      await call(() => changer.chat.postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) }))
    },
    async removeReaction(channel, ts, name) {
      await call(() => changer.reactions.remove({ channel, timestamp: ts, name }))
    },
    async openConversation(user) {
      const id = (await call(() => client.conversations.open({ users: user, return_im: false })))?.channel?.id
      if (!id) throw classifySlackError(new Error('conversations.open returned no channel'))!
      return id
    },
    async userInfo(user) {
      const found = (await call(() => client.users.info({ user })))?.user
      const realName = (found?.real_name || found?.profile?.real_name || '').trim()
      return {
        id: user, realName: realName || undefined, timeZone: found?.tz || undefined, teamId: found?.team_id || undefined,
        guest: found?.is_restricted === true || found?.is_ultra_restricted === true || found?.is_stranger === true,
      }
    },
    groupMembers: async (group) => (await call(() => client.usergroups.users.list({ usergroup: group })))?.users ?? [],
    presence: async (user) => ((await call(() => client.users.getPresence({ user })))?.presence === 'away' ? 'away' : 'active'),
    async status(user) {
      const profile = (await call(() => client.users.profile.get({ user })))?.profile
      return { text: profile?.status_text ?? '', emoji: profile?.status_emoji ?? '', expiration: profile?.status_expiration ?? 0 }
    },
    async publishHome(user, view) {
      await call(() => changer.views.publish({ user_id: user, view: view as never }))
    },
    async openView(triggerId, view) {
      const id = (await call(() => changer.views.open({ trigger_id: triggerId, view: view as never })))?.view?.id
      if (!id) throw classifySlackError(new Error('views.open returned no view'))!
      return id
    },
    async updateView(viewId, view) {
      await call(() => changer.views.update({ view_id: viewId, view: view as never }))
    },
    async startUpload(file) {
      // docs.slack.dev/reference/methods/files.getUploadURLExternal: `filename` and `length` ("Size in bytes of the
      // file being uploaded") required, `alt_txt` ("Description of image for screen-reader") optional; it
      // "returns an upload URL and a file ID" (`upload_url`, `file_id`). Through apiCall: the SDK's typed method
      // names the last one alt_text, which the reference does not.
      const answer = await call(() => client.apiCall('files.getUploadURLExternal', { filename: file.filename, length: file.length, alt_txt: file.altText }))
      const { upload_url: uploadUrl, file_id: fileId } = (answer ?? {}) as { upload_url?: unknown; file_id?: unknown }
      if (typeof uploadUrl !== 'string' || typeof fileId !== 'string') throw classifySlackError(new Error('files.getUploadURLExternal returned no upload_url'))!
      return { uploadUrl, fileId }
    },
    sendUpload: (uploadUrl, bytes) => postFileBytes(uploadUrl, bytes, options.timeoutMs),
    async completeUpload(fileId, title, channel, comment) {
      // docs.slack.dev/reference/methods/files.completeUploadExternal: `files` "Array of file ids and their
      // corresponding (optional) titles", `channel_id` "Channel ID where the file will be shared",
      // `initial_comment` "The message text introducing the file in specified channels".
      await call(async () => {
        try {
          return await changer.files.completeUploadExternal({ files: [{ id: fileId, title }], channel_id: channel, initial_comment: comment })
        } catch (error) {
          if (!mayHavePosted(error)) throw error
          throw new PrheraldError('slack_outcome_unknown', `Slack: files.completeUploadExternal outcome unknown (${error instanceof Error ? error.message : String(error)})`, { cause: error })
        }
      })
    },
    findSharedFile: (channel, fileId, window, page) => findSharedFile({ client, call }, channel, fileId, window, page),
    async lookupUserByEmail(email) {
      const result = await call(async () => {
        try {
          return await client.users.lookupByEmail({ email })
        } catch (error) {
          // Not an error of the call: the answer that nobody in the workspace has this email.
          const data = (error as { code?: unknown; data?: { error?: unknown } })
          if (data.code === ErrorCode.PlatformError && data.data?.error === 'users_not_found') return undefined
          if (data.code === ErrorCode.PlatformError && data.data?.error === 'missing_scope') {
            throw new PrheraldError('slack_permanent', 'Slack: missing_scope (users.lookupByEmail)', {
              cause: error, fix: 'add the users:read.email bot scope to the Slack app and reinstall it, or turn slack.lookup_users_by_email off',
            })
          }
          throw error
        }
      })
      return result?.user?.id
    },
  }
}
