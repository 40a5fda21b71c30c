import type { GitHost } from '../hosts/contract.ts'
import type { DirectMessageStore } from '../store/store.ts'
import type { LinkedToken } from './token-vault.ts'

/** A GitHub refresh token this close to its six months gets the relink notice. */
export const RELINK_NOTICE_MS = 14 * 24 * 3_600_000

/** Slack's three escapes; a login or a host's words are text, never markup. (talk-back/ imports nothing of slack/, which may import it.) */
const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** Not a pull request's: the notices ride the direct-message rows, which need a key there. */
const NO_PULL_REQUEST = '-'

/**
 * What talk-back tells a person by direct message (docs/talk-back.md): that a link is gone because the host
 * refused to renew it, and that a link is about to lapse (GitHub's six-month refresh token). They go through
 * the one direct-message path (rows in direct_messages, the sender and its outbox), due at once: they are
 * not pull-request notifications, so working hours do not hold them. Each has a key of its own, so a replica
 * or a retry that queues it again queues nothing (the rows' primary key).
 */
export function createTalkBackNotices(deps: {
  store: DirectMessageStore
  hostOf(id: string): GitHost
  now: () => number
  /** Wakes the direct-message sender now rather than at its next round. */
  kick?: () => void
}) {
  const queue = async (slackUser: string, dmKey: string, body: string) => {
    const at = deps.now()
    const queued = await deps.store.queueDirectMessages([{ recipient: slackUser, dmKey, prKey: NO_PULL_REQUEST, body, dueAt: at, createdAt: at }])
    if (queued > 0) deps.kick?.()
  }
  return {
    /** The vault's onUnlinked: called once per refused generation. */
    async unlinked(link: { slackUser: string; host: string; login: string; reason: string }): Promise<void> {
      const name = deps.hostOf(link.host).words.name
      await queue(link.slackUser, `talk-back:unlinked:${link.host}:${deps.now()}`,
        `Your ${name} account *${escapeText(link.login)}* is no longer linked to prherald: ${name} refused to renew its access (${escapeText(link.reason.slice(0, 200))}). ` +
        `Link it again with \`/prherald link ${link.host}\`.`)
    },
    /**
     * Checked at each use of the token (tokenFor) and by the sweep over idle links (relink-sweep.ts): once its
     * refresh token nears its end, one notice per refresh-token expiry (a relink, or a refresh, makes a new one).
     */
    async relinkDue(slackUser: string, host: string, token: Pick<LinkedToken, 'login' | 'refreshExpiresAt'>): Promise<void> {
      const until = token.refreshExpiresAt
      if (until === undefined || until - deps.now() > RELINK_NOTICE_MS || until <= deps.now()) return
      const name = deps.hostOf(host).words.name
      const days = Math.max(0, Math.floor((until - deps.now()) / (24 * 3_600_000)))
      await queue(slackUser, `talk-back:relink:${host}:${until}`,
        `Your ${name} link (*${escapeText(token.login)}*) ends in ${days === 0 ? 'less than a day' : `${days} day${days === 1 ? '' : 's'}`}: ` +
        `${name} asks people to authorise again every six months. Link again with \`/prherald link ${host}\` to keep replying and reviewing from Slack.`)
    },
  }
}

export type TalkBackNotices = ReturnType<typeof createTalkBackNotices>
