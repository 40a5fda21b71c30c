import { errorFields, type Logger } from '../log/logger.ts'
import type { TalkBackStore } from '../store/talk-back-store.ts'
import { RELINK_NOTICE_MS, type TalkBackNotices } from './talk-back-notices.ts'

/**
 * The relink notice for links nobody uses (docs/talk-back.md). Each refresh gives GitHub's six months afresh,
 * so a link in use never nears its end; an idle one does, and no use would notice it. Every replica sweeps
 * (every six hours, and once at the start); the notice's key in direct_messages sends it once for each
 * refresh-token expiry whoever swept first.
 */
export function startRelinkSweep(deps: {
  store: Pick<TalkBackStore, 'linkedAccountsEndingBy'>
  notices: Pick<TalkBackNotices, 'relinkDue'>
  now: () => number
  logger: Logger
  intervalMs?: number
}): { stop(): Promise<void> } {
  const sweep = async () => {
    try {
      for (const row of await deps.store.linkedAccountsEndingBy(deps.now() + RELINK_NOTICE_MS)) {
        await deps.notices.relinkDue(row.slackUser, row.host, { login: row.login, refreshExpiresAt: row.refreshExpiresAt })
      }
    } catch (error) {
      deps.logger.warn('talk-back relink sweep failed; it runs again later', errorFields(error))
    }
  }
  let running = sweep()
  const timer = setInterval(() => { running = running.then(sweep) }, deps.intervalMs ?? 6 * 3_600_000)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
