import { pullRequestKey, splitRepository } from '../../machines/pull-request-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { CommentApi } from '../hosts/talk-back-contract.ts'
import { CLOCK_SKEW_MS, type LeftIntent } from '../slack/outbox.ts'
import { NO_COMMENT, type ReplyCommentRecord, type ReplyCommentStore } from '../store/reply-comment-store.ts'
import type { SharedWork } from '../store/store.ts'
import { replyMarker } from '../talk-back/reply-body.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'

export interface LeftCommentsDeps {
  store: ReplyCommentStore & Pick<SharedWork, 'lockPullRequest'>
  talkBack: TalkBackService
  hosts: HostSet
}

/**
 * The start-up source of thread replies' comments whose create an earlier run left with an unknown outcome
 * (recover-intents.ts): each is looked for at the host by its marker, as the account it was made with, and
 * adopted when found; the reply's delivery, still pending, then finds its comment made and creates none. A
 * reply deleted meanwhile (its row marked deleted) has the comment found deleted instead of adopted.
 */
export function leftComments(deps: LeftCommentsDeps): () => Promise<LeftIntent[]> {
  const accountOf = async (row: ReplyCommentRecord): Promise<CommentApi | undefined> => {
    if (row.author === 'prherald') return deps.hosts.get(row.provider)?.api?.comments
    const token = await deps.talkBack.tokenFor(row.slackUser, row.provider)
    return token && deps.talkBack.as(row.provider, token.accessToken)
  }
  /** A reply in a code thread (one that linked to a mirrored code comment) is looked for, and deleted, in that thread. */
  const apiOf = async (row: ReplyCommentRecord): Promise<CommentApi | undefined> => {
    const api = await accountOf(row)
    return row.thread === undefined ? api : api?.inThread?.(row.thread)
  }
  return async () => (await deps.store.replyIntents()).map((row): LeftIntent => {
    const { channel, replyTs } = row
    const pr = { ...splitRepository(row.repository), number: row.prNumber }
    return {
      kind: 'comment', facts: { repository: row.repository, pr: row.prNumber, channel, reply_ts: replyTs },
      async hold() {
        // The pull request's lock: on PostgreSQL a live replica's batch may be making this very comment.
        const release = await deps.store.lockPullRequest(pullRequestKey(row))
        const now = await deps.store.replyComment(channel, replyTs)
        if (now && now.commentId === undefined && now.intentAt === row.intentAt && now.deleted === row.deleted) return release
        await release()
        return undefined
      },
      async find() {
        return (await apiOf(row))?.findComment(pr, replyMarker(channel, replyTs), row.intentAt - CLOCK_SKEW_MS)
      },
      async complete(id) {
        // The reply was deleted meanwhile (reply-comments.ts): what the create made goes too.
        if (row.deleted) await (await apiOf(row))?.deleteComment(pr, id)
        await deps.store.completeReplyComment(channel, replyTs, id)
      },
      // A deleted reply's row stays, settled (a replay of its post then makes nothing); a live one's intent goes.
      drop: () => (row.deleted ? deps.store.completeReplyComment(channel, replyTs, NO_COMMENT) : deps.store.dropReplyIntent(channel, replyTs)),
    }
  })
}
