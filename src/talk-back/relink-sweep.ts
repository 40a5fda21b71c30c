import type { TalkBackStore } from '../store/talk-back-store.ts'
import { RELINK_NOTICE_MS, type TalkBackNotices } from './talk-back-notices.ts'

/** How often the scheduler runs the relink sweep (and once at the start). */
export const RELINK_SWEEP_MS = 6 * 3_600_000

/**
 * The relink notice for links nobody uses (docs/talk-back.md). Each refresh gives GitHub's six months afresh,
 * so a link in use never nears its end; an idle one does, and no use would notice it. Every replica sweeps
 * (a scheduler job every six hours, and once at the start); the notice's key in direct_messages sends it once
 * for each refresh-token expiry whoever swept first.
 */
export async function sweepRelinks(deps: {
  store: Pick<TalkBackStore, 'linkedAccountsEndingBy'>
  notices: Pick<TalkBackNotices, 'relinkDue'>
  now: () => number
}): Promise<void> {
  for (const row of await deps.store.linkedAccountsEndingBy(deps.now() + RELINK_NOTICE_MS)) {
    await deps.notices.relinkDue(row.slackUser, row.host, { login: row.login, refreshExpiresAt: row.refreshExpiresAt })
  }
}
