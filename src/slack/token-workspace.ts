import type { Logger } from '../log/logger.ts'
import { callSlackApi, createWebClient } from './slack-api.ts'

export interface TokenWorkspace {
  teamId: string
  /** Present when auth.test reports it (bot tokens do). */
  appId: string | undefined
  /**
   * The bot's own user id (auth.test's `user_id`: it "tells "you" who you are, even if you might be a bot",
   * docs.slack.dev/reference/methods/auth.test): a message of that user is prherald's, with or without a `bot_id`.
   */
  botUserId?: string | undefined
}

/**
 * The workspace and app SLACK_BOT_TOKEN belongs to, from auth.test through the one Slack API: asked at the
 * first request Slack sends and kept once Slack answered (a token's workspace never changes; a new token
 * means a restart), so there is one auth.test per token. Requests arriving together share the one question.
 * While Slack does not answer, undefined, and the request is refused rather than trusted; the next one asks again.
 */
export function createTokenWorkspace(options: { token: string; apiUrl: string; logger: Logger }): () => Promise<TokenWorkspace | undefined> {
  const client = createWebClient({ token: options.token, apiUrl: options.apiUrl, timeoutMs: 5_000 })
  let known: Promise<TokenWorkspace | undefined> | undefined
  const ask = async (): Promise<TokenWorkspace | undefined> => {
    try {
      const { data } = await callSlackApi(client, 'auth.test')
      if (data.ok === true && typeof data.team_id === 'string') {
        return { teamId: data.team_id, appId: typeof data.app_id === 'string' ? data.app_id : undefined, botUserId: typeof data.user_id === 'string' ? data.user_id : undefined }
      }
      options.logger.warn('auth.test gave no workspace; Slack requests are refused until it does', { slack_error: String(data.error ?? 'no team_id') })
    } catch (error) {
      options.logger.warn('auth.test did not answer; Slack requests are refused until it does', { error: error instanceof Error ? error.message : String(error) })
    }
    return undefined
  }
  return async () => {
    known ??= ask()
    const answer = await known
    if (!answer) known = undefined
    return answer
  }
}
