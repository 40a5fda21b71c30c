/** The Slack Web API methods prherald calls while it keeps messages up to date. */
export type SlackMethod =
  | 'chat.postMessage'
  | 'chat.update'
  | 'chat.delete'
  | 'reactions.add'
  | 'chat.postEphemeral'
  | 'reactions.remove'
  | 'conversations.history'
  | 'conversations.replies'
  | 'users.lookupByEmail'
  | 'conversations.open'
  | 'users.info'
  | 'usergroups.users.list'
  | 'views.publish'
  | 'users.getPresence'
  | 'users.profile.get'
  | 'files.getUploadURLExternal'
  | 'files.completeUploadExternal'

/**
 * One budget: `perMinute` calls a minute on average, of which `burst` may go back to back. `scope` says
 * what Slack counts it over: the whole workspace (per method, per app) or one channel.
 */
export interface RateLimit {
  scope: 'workspace' | 'channel'
  perMinute: number
  burst: number
}

/**
 * Slack's published limits, per method. Source: https://docs.slack.dev/apis/web-api/rate-limits (was
 * https://api.slack.com/docs/rate-limits) and each method's reference page ("Rate limits"):
 * - Limits apply "per API method per workspace per app". Tier 2 is 20+ a minute, Tier 3 is 50+ a minute
 *   ("sporadic bursts are welcome"); we spend the floor of each tier and allow a small burst.
 * - chat.postMessage is a special tier: "generally allows posting one message per second per channel, while
 *   also maintaining a workspace-wide limit" (its reference page: "several hundred messages per minute").
 *   Bursts above 1 a second are "not guaranteed", so a channel gets no burst.
 * - chat.update, reactions.add: Tier 3. reactions.remove: Tier 2 on its reference page.
 * - conversations.history, conversations.replies: Tier 3 for internal and Marketplace apps. Since 2025,
 *   commercially distributed apps outside the Marketplace get 1 a minute (15 messages a call) there; such an
 *   installation should run with `slack.pacing: off` and rely on the 429 handling, or lower these rows.
 * - users.lookupByEmail (slack.lookup_users_by_email): Tier 3 on its reference page
 *   (https://docs.slack.dev/reference/methods/users.lookupByEmail).
 * Past a limit Slack answers HTTP 429 with `Retry-After` (seconds); the pacer holds that budget for as long.
 */
export const SLACK_RATE_LIMITS: Record<SlackMethod, readonly RateLimit[]> = {
  'chat.postMessage': [
    { scope: 'channel', perMinute: 60, burst: 1 },
    { scope: 'workspace', perMinute: 300, burst: 10 },
  ],
  'chat.update': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  // Tier 3 on its reference page: a comment deleted at the host takes its mirrored reply with it.
  'chat.delete': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'reactions.add': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'reactions.remove': [{ scope: 'workspace', perMinute: 20, burst: 3 }],
  // Tier 4 on its reference page: talk-back's notes to one person about their reply.
  'chat.postEphemeral': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
  'conversations.history': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'conversations.replies': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'users.lookupByEmail': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  // The personal side (docs/notifications.md): conversations.open Tier 3, users.info Tier 4, usergroups.users.list
  // Tier 2, views.publish Tier 4 (each method's reference page). A direct message is a chat.postMessage in the
  // person's D… channel, paced by the rows above.
  'conversations.open': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'users.info': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
  'usergroups.users.list': [{ scope: 'workspace', perMinute: 20, burst: 3 }],
  'views.publish': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
  // assign's skip_away (src/assign/away-check.ts), each answer cached: users.profile.get is "Tier 4: 100+ per
  // minute" (its reference page); users.getPresence is spent at Tier 3's floor.
  'users.getPresence': [{ scope: 'workspace', perMinute: 50, burst: 5 }],
  'users.profile.get': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
  // The weekly summary's chart: "Rate limits Tier 4" on both methods' reference pages.
  'files.getUploadURLExternal': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
  'files.completeUploadExternal': [{ scope: 'workspace', perMinute: 100, burst: 10 }],
}

/** The budget a 429 holds: for posts the channel (Slack's per-channel limit is the one a burst trips), else the method. */
export function heldScope(method: SlackMethod): RateLimit['scope'] {
  return method === 'chat.postMessage' ? 'channel' : 'workspace'
}

/** The key of one budget: a method's workspace budget, or its budget in one channel. */
export function budgetKey(method: SlackMethod, scope: RateLimit['scope'], channel: string): string {
  return scope === 'channel' ? `${method} ${channel}` : method
}
