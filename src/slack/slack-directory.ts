import { ErrorCode, type RetryOptions } from '@slack/web-api'
import type { Logger } from '../log/logger.ts'
import { createWebClient } from './slack-api.ts'
import { classifySlackError, DEFAULT_SLACK_RETRY } from './slack-client.ts'
import type { SlackTokenObserver } from './slack-token-state.ts'

/**
 * The Slack calls of the personal side (docs/notifications.md), beside the message client: a person's
 * direct-message channel, their time zone, a user group's members, their home tab. Errors are classified
 * like the message client's (slack_transient, slack_rate_limited, slack_permanent, slack_auth).
 */
export interface SlackDirectory {
  /** conversations.open: the id of the direct-message channel between the bot and `user` (im:write). */
  openConversation(user: string): Promise<string>
  /** users.info: the IANA time zone of the person's profile, undefined when Slack has none (users:read). */
  userTimeZone(user: string): Promise<string | undefined>
  /** usergroups.users.list: the members of a user group (usergroups:read). */
  groupMembers(group: string): Promise<string[]>
  /** views.publish: the person's App Home tab. */
  publishHome(user: string, view: { type: 'home'; blocks: unknown[]; private_metadata?: string }): Promise<void>
}

export function createSlackDirectory(options: {
  token: string; apiUrl: string; logger: Logger; timeoutMs?: number | undefined; retry?: RetryOptions | undefined; tokenObserver?: SlackTokenObserver | undefined
}): SlackDirectory {
  const client = createWebClient({ ...options, retry: options.retry ?? DEFAULT_SLACK_RETRY })
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      const result = await run()
      options.tokenObserver?.accepted()
      return result
    } catch (error) {
      const classified = classifySlackError(error)
      if (classified?.code === 'slack_auth') options.tokenObserver?.refused(String((error as { data?: { error?: unknown } }).data?.error), classified.fix)
      else if ((error as { code?: unknown }).code === ErrorCode.PlatformError) options.tokenObserver?.accepted()
      throw classified ?? error
    }
  }
  return {
    async openConversation(user) {
      const result = await call(() => client.conversations.open({ users: user, return_im: false }))
      const id = result.channel?.id
      if (!id) throw classifySlackError(new Error('conversations.open returned no channel'))!
      return id
    },
    async userTimeZone(user) {
      const result = await call(() => client.users.info({ user }))
      return result.user?.tz || undefined
    },
    async groupMembers(group) {
      return (await call(() => client.usergroups.users.list({ usergroup: group }))).users ?? []
    },
    async publishHome(user, view) {
      await call(() => client.views.publish({ user_id: user, view: view as never }))
    },
  }
}
