import type { SlackReply } from '../../machines/lifecycle-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { isPrheraldError } from '../errors.ts'
import type { PullRequestAddress } from '../hosts/contract.ts'
import type { CommentApi } from '../hosts/talk-back-contract.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { CLOCK_SKEW_MS, type Outbox } from '../slack/outbox.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackClient, SlackPerson } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { ReplyCommentRecord, ReplyCommentStore } from '../store/reply-comment-store.ts'
import type { IntentStore } from '../store/store.ts'
import { messageLinks } from '../slack/message-links.ts'
import { codeThreadOf } from './mirror-comments.ts'
import { auditTalkBack } from '../talk-back/person-limits.ts'
import { replyBody, replyMarker } from '../talk-back/reply-body.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'
import type { BatchContext } from './run-batch.ts'

/** The reaction a reply gets once its comment is made (docs/talk-back.md). */
export const COMMENTED_REACTION = 'speech_balloon'

export interface ReplyCommentsDeps {
  /** `threadReplyAt`: which of the pull request's replies a link in a person's reply names (a mirrored code comment). */
  store: ReplyCommentStore & Pick<IntentStore, 'threadReplyAt'>
  outbox: Pick<Outbox, 'comment'>
  talkBack: TalkBackService
  /** prherald's own comments (`HostApi.comments`) and each host's `users:`, for mentions. */
  hosts: HostSet
  slack: SlackClient
  pacer: SlackPacer
  logger: Logger
}

/** Whose account a reply's comment is made with, and the API that acts as it; prherald's names the person. */
type Author = { author: 'person'; api: CommentApi; login: string } | { author: 'prherald'; api: CommentApi; login: undefined; person: SlackPerson | undefined }

/**
 * Where a reply's comment goes: a code thread when the reply links to a mirrored code comment of the pull request
 * (the link cut from what is posted), else the conversation; with the account's calls there.
 */
interface Place {
  thread: string | undefined
  /** The reply as its comment says it. */
  reply: SlackReply
  api: CommentApi
}

/** Refusals the host gave for good: the person is told in the host's words, and the batch goes on. */
const REFUSED = ['git_host_refused', 'git_host_auth', 'git_host_scope', 'git_host_not_found'] as const
const refusedBy = (error: unknown) => REFUSED.some((code) => isPrheraldError(error, code))

/**
 * Thread replies of one pull request's batch, in their order (the batch holds the pull request's lock):
 * a post becomes a comment (as the person when linked; by prherald's own account with the person named when
 * `thread_replies: everyone`; otherwise an ephemeral note on how to link), an edit edits it, a deletion
 * deletes it. A refusal is told to the person with the host's words; a failure that may pass fails the batch,
 * which is retried (the outbox looks for a comment whose answer was lost before creating it again).
 */
export function createReplyComments(deps: ReplyCommentsDeps) {
  const { logger, talkBack } = deps
  const note = (reply: SlackReply, text: string, lost: AbortSignal) =>
    deps.pacer.call('chat.postEphemeral', reply.channel, () => deps.slack.postEphemeral(reply.channel, reply.user, text), lost)
      .catch((error: unknown) => logger.warn('talk-back note not sent', { channel: reply.channel, slack_user: reply.user, ...errorFields(error) }))

  const react = (reply: SlackReply, lost: AbortSignal) =>
    deps.pacer.call('reactions.add', reply.channel, () => deps.slack.addReaction(reply.channel, reply.replyTs, COMMENTED_REACTION), lost)
      .catch((error: unknown) => logger.info('talk-back reaction not added', { channel: reply.channel, ...errorFields(error) }))

  /**
   * Who the person is, as their workspace's record says (users.info), never as the event names them. One
   * Slack cannot tell is taken as not a member: from outside the workspace, and named without a name.
   */
  const personOf = async (reply: SlackReply, lost: AbortSignal): Promise<SlackPerson | undefined> => {
    try {
      return await deps.pacer.call('users.info', reply.user, () => deps.slack.userInfo(reply.user), lost)
    } catch (error) {
      if (error instanceof ShutdownInterrupt) throw error
      logger.warn('slack user look-up failed; the reply is treated as from outside the workspace', {
        slack_user: reply.user, ...errorFields(error), fix: 'add the users:read bot scope to the Slack app and reinstall it (docs/slack-app.md#talk-back)',
      })
      return undefined
    }
  }
  /** A guest, someone of another workspace (Slack Connect), or someone Slack could not say is a member. */
  const outside = (reply: SlackReply, person: SlackPerson | undefined) => reply.external === true || person === undefined || person.guest

  // Each person whose link the token keys cannot open is logged and told once per run, not at each reply.
  const sealedTold = new Set<string>()
  /** The person's token; none when the link cannot be opened here (a reply must never stall the pull request on it). */
  const tokenOf = async (reply: SlackReply, lost: AbortSignal) => {
    try {
      return await talkBack.tokenFor(reply.user, reply.provider)
    } catch (error) {
      if (!isPrheraldError(error, 'token_sealed')) throw error
      const key = `${reply.user}\n${reply.provider}`
      if (!sealedTold.has(key)) {
        sealedTold.add(key)
        logger.warn('linked account cannot be opened; the person is taken as not linked', { slack_user: reply.user, host: reply.provider, reason: error.message, fix: error.fix })
        await note(reply, `Your linked account cannot be used just now (prherald cannot open its token), so your replies are taken as from someone not linked. Link again with \`/prherald link ${reply.provider}\`.`, lost)
      }
      return undefined
    }
  }

  /** The account a reply's comment is (or was) made with; undefined when there is none. */
  const authorOf = async (reply: SlackReply, lost: AbortSignal, was?: ReplyCommentRecord['author']): Promise<Author | undefined> => {
    if (was !== 'prherald') {
      const token = await tokenOf(reply, lost)
      const api = token && talkBack.as(reply.provider, token.accessToken)
      if (api && token) return { author: 'person', api, login: token.login }
      if (was === 'person') return undefined
    }
    const own = deps.hosts.get(reply.provider)?.api?.comments
    if (!own) return undefined
    const settings = talkBack.settingsFor(reply.provider, `${reply.owner}/${reply.repo}`)
    if (was !== 'prherald' && settings.threadReplies !== 'everyone') return undefined
    const person = await personOf(reply, lost)
    // prherald's account speaks for people from outside the workspace only where `external: everyone` says so.
    if (was !== 'prherald' && outside(reply, person) && settings.external !== 'everyone') return undefined
    return { author: 'prherald', api: own, login: undefined, person }
  }

  /**
   * The code thread a reply goes to (docs/talk-back.md, "Replies go back to the code thread"): the first link in it
   * to a message that is one of this pull request's mirrored code comments (its permalink, which Slack unfurls),
   * or for an edit, a deletion or a retry the thread its comment is already in (a comment does not move). The link
   * is cut from the text; a new reply that is the link alone says nothing to the code thread and stays a
   * conversation comment, link and all, as does any reply on a host without code threads.
   */
  const placeOf = async (reply: SlackReply, was: ReplyCommentRecord | undefined, author: Author): Promise<Place> => {
    const conversation: Place = { thread: undefined, reply, api: author.api }
    if (was && was.thread === undefined) return conversation
    const ref = { provider: reply.provider, repository: `${reply.owner}/${reply.repo}`, prNumber: reply.number }
    let found: { thread: string; text: string } | undefined
    for (const link of messageLinks(reply.text ?? '')) {
      const mirrored = await deps.store.threadReplyAt(ref, link.channel, link.ts)
      const thread = mirrored && codeThreadOf(mirrored.replyKey)
      if (thread === undefined || (was && was.thread !== thread)) continue
      const text = (reply.text ?? '').replace(link.written, '').trim()
      if (!was && text === '' && (reply.files ?? []).length === 0) break
      found = { thread, text }
      break
    }
    const thread = found?.thread ?? was?.thread
    const api = thread === undefined ? undefined : author.api.inThread?.(thread)
    if (thread === undefined || !api) return conversation
    return { thread, api, reply: found ? { ...reply, text: found.text } : reply }
  }

  const bodyOf = (reply: SlackReply, author: Author) => {
    const host = deps.hosts.get(reply.provider)
    // users: maps a host key to a Slack id; a mention needs the way back.
    const keys = new Map(Object.entries(host?.users ?? {}).map(([key, id]) => [id, key]))
    return replyBody(reply, {
      onBehalf: author.author === 'prherald' ? { realName: author.person?.realName } : false,
      mention: (id) => {
        const key = keys.get(id)
        return key === undefined ? undefined : talkBack.mention(reply.provider, key)
      },
    })
  }

  /**
   * The reply is deleted and its comment's create has an unknown outcome. Marked deleted first: a replay of
   * its post then makes nothing, and the start-up recovery deletes what it adopts (left-comments.ts). Then
   * the comment is looked for by its marker and deleted; a look-up that fails fails the batch, which is retried.
   */
  async function deleteUnknown(reply: SlackReply, row: ReplyCommentRecord, api: CommentApi, login: string | undefined, pr: PullRequestAddress, audit: (login: string | undefined, outcome: string) => void) {
    await deps.store.markReplyDeleted(reply.channel, reply.replyTs)
    const id = await api.findComment(pr, replyMarker(reply.channel, reply.replyTs), row.intentAt - CLOCK_SKEW_MS)
    if (id !== undefined) {
      await api.deleteComment(pr, id)
      await deps.store.completeReplyComment(reply.channel, reply.replyTs, id)
    }
    audit(login, id === undefined ? 'deleted_not_found' : 'deleted_adopted')
  }

  async function one(reply: SlackReply, batch: BatchContext): Promise<void> {
    const repository = `${reply.owner}/${reply.repo}`
    const pr = { owner: reply.owner, repo: reply.repo, number: reply.number }
    const audit = (login: string | undefined, outcome: string) =>
      auditTalkBack(logger, { slackUser: reply.user, host: reply.provider, login, action: `reply_${reply.action}`, pr: batch.prKey, outcome })
    const settings = talkBack.settingsFor(reply.provider, repository)
    const mode = settings.threadReplies
    const row = await deps.store.replyComment(reply.channel, reply.replyTs)
    if (mode === 'off' && !row) return void logger.info('ignored thread reply', { pr_key: batch.prKey, reason: 'thread_replies_off' })
    const refused = async (author: Author, error: unknown) => {
      if (!refusedBy(error)) throw error
      audit(author.login, 'refused')
      const says = isPrheraldError(error) ? error.hostSays ?? error.message : String(error)
      await note(reply, `Your reply did not reach the pull request: ${says}`, batch.lost)
    }

    if (reply.action === 'post') {
      // Deleted while its comment's create had an unknown outcome (below): the replayed post makes none.
      if (row?.deleted) return void logger.info('ignored thread reply', { pr_key: batch.prKey, reason: 'reply_deleted' })
      // A replay after the comment was made (or adopted at start-up): only the reaction may be missing.
      if (row?.commentId) return react(reply, batch.lost)
      // `external: off`: no reply of a guest's or another workspace's goes to the pull request, linked or not.
      if (!row && settings.external === 'off' && outside(reply, await personOf(reply, batch.lost))) {
        audit(undefined, 'external_off')
        return note(reply, 'Replies from guests and from other workspaces do not go to the pull request here.', batch.lost)
      }
      const author = await authorOf(reply, batch.lost, row?.author)
      if (!author) {
        audit(undefined, 'not_linked')
        const url = await talkBack.linkUrl(reply.user, reply.provider).catch(() => undefined)
        const how = url ? `<${url}|link your account>` : `link your account with \`/prherald link ${reply.provider}\``
        return note(reply, `Replies here go to the pull request as their author: ${how} and post again.`, batch.lost)
      }
      const place = await placeOf(reply, row, author)
      try {
        const { outcome } = await deps.outbox.comment({
          intent: { channel: reply.channel, replyTs: reply.replyTs, provider: reply.provider, repository, prNumber: reply.number, slackUser: reply.user, author: author.author, thread: place.thread },
          left: row, api: place.api, pr, body: bodyOf(place.reply, author), marker: replyMarker(reply.channel, reply.replyTs),
          facts: { pr_key: batch.prKey, channel: reply.channel, reply_ts: reply.replyTs, ...(place.thread === undefined ? {} : { code_thread: place.thread }) }, lost: batch.lost,
        })
        audit(author.login, outcome === 'adopted' ? 'commented_adopted' : 'commented')
      } catch (error) {
        return refused(author, error)
      }
      return react(reply, batch.lost)
    }
    // An edit or a deletion acts on the comment its reply made, as the account that made it.
    if (!row) return void logger.info('ignored thread reply', { pr_key: batch.prKey, action: reply.action, reason: 'not_a_comment' })
    // Only the reply's author changes its comment (Slack lets no one else edit a message; a forged event is refused here too).
    if (row.slackUser !== reply.user) return void logger.warn('ignored thread reply', { pr_key: batch.prKey, action: reply.action, reason: 'not_the_author' })
    const { commentId } = row
    // A deletion of a reply whose comment's create has an unknown outcome (its batch died, or was parked) looks for it.
    const unknown = reply.action === 'delete' && commentId === undefined
    if (!unknown && (commentId === undefined || row.deleted)) return void logger.info('ignored thread reply', { pr_key: batch.prKey, action: reply.action, reason: 'no_comment' })
    const author = await authorOf(reply, batch.lost, row.author)
    if (!author) {
      audit(undefined, 'not_linked')
      return note(reply, `Your ${reply.action === 'edit' ? 'edit' : 'deletion'} did not reach the pull request: link your account again with \`/prherald link ${reply.provider}\`.`, batch.lost)
    }
    // A reply in a code thread is edited and deleted there (on GitHub a review comment, not an issue comment).
    const place = await placeOf(reply, row, author)
    try {
      if (commentId === undefined) return await deleteUnknown(reply, row, place.api, author.login, pr, audit)
      if (reply.action === 'edit') await place.api.editComment(pr, commentId, bodyOf(place.reply, author))
      else {
        await place.api.deleteComment(pr, commentId)
        await deps.store.markReplyDeleted(reply.channel, reply.replyTs)
      }
      audit(author.login, reply.action === 'edit' ? 'edited' : 'deleted')
    } catch (error) {
      await refused(author, error)
    }
  }

  return async function replyComments(replies: readonly SlackReply[], batch: BatchContext): Promise<void> {
    for (const reply of replies) await one(reply, batch)
  }
}
