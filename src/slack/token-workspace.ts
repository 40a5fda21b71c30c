import type { Logger } from '../log/logger.ts'

export interface TokenWorkspace {
  teamId: string
  /** Present when auth.test reports it (bot tokens do). */
  appId: string | undefined
}

/**
 * The workspace and app SLACK_BOT_TOKEN belongs to, from auth.test: asked at the first click and kept once
 * Slack answered (a token's workspace never changes; a new token means a restart). While Slack does not
 * answer, undefined, and the click is refused rather than trusted.
 */
export function createTokenWorkspace(options: { token: string; apiUrl: string; logger: Logger }): () => Promise<TokenWorkspace | undefined> {
  let known: TokenWorkspace | undefined
  return async () => {
    if (known) return known
    try {
      const response = await fetch(`${options.apiUrl}auth.test`, {
        method: 'POST', headers: { authorization: `Bearer ${options.token}` }, signal: AbortSignal.timeout(5_000),
      })
      const data = (await response.json()) as { ok?: boolean; team_id?: unknown; app_id?: unknown; error?: unknown }
      if (data.ok === true && typeof data.team_id === 'string') {
        known = { teamId: data.team_id, appId: typeof data.app_id === 'string' ? data.app_id : undefined }
      } else {
        options.logger.warn('auth.test gave no workspace; Start review clicks are refused until it does', { slack_error: String(data.error ?? 'no team_id') })
      }
    } catch (error) {
      options.logger.warn('auth.test did not answer; Start review clicks are refused until it does', { error: error instanceof Error ? error.message : String(error) })
    }
    return known
  }
}
