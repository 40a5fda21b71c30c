/**
 * Slack's published rate limits, as the fake Slack enforces them: its own reading of Slack's pages, written
 * here and not imported from src/, so that the pacer (src/slack/rate-limits.ts) is checked against Slack's
 * words rather than against itself.
 *
 * https://docs.slack.dev/apis/web-api/rate-limits (was https://api.slack.com/docs/rate-limits), "applied on a
 * 'per API method per workspace/team per app' basis":
 * - "Web API Tier 1: 1+ per minute. Access tier 1 methods infrequently. A small amount of burst behavior is
 *   tolerated."
 * - "Web API Tier 2: 20+ per minute. Most methods allow at least 20 requests per minute, while allowing for
 *   occasional bursts of more requests."
 * - "Web API Tier 3: 50+ per minute. ... Sporadic bursts are welcome."
 * - "Web API Tier 4: 100+ per minute. Enjoy a large request quota for Tier 4 methods, including generous burst
 *   behavior."
 * - "Special Tier ... chat.postMessage generally allows posting one message per second per channel, while also
 *   maintaining a workspace-wide limit"; "Posting messages: 1 per second. Short bursts >1 allowed. If you attempt
 *   bursts, there is no guarantee that messages will" be accepted. chat.postMessage's reference page puts the
 *   workspace-wide limit at "several hundred messages per minute".
 * The pages give the floors, not the size of a tolerated burst: the bursts below are the smallest reading of
 * each tier's words (Tier 1 "a small amount": none beyond the one call; Tier 2 "occasional": 3; Tier 3
 * "sporadic bursts are welcome": 5; Tier 4 "generous": 10; a channel's posts: none, as bursts are "no
 * guarantee"), so a client that bursts more than that is refused here first.
 */
export interface PublishedLimit {
  /** What Slack counts the calls over. */
  per: 'workspace' | 'channel'
  perMinute: number
  burst: number
}

const TIER = {
  1: { per: 'workspace', perMinute: 1, burst: 1 },
  2: { per: 'workspace', perMinute: 20, burst: 3 },
  3: { per: 'workspace', perMinute: 50, burst: 5 },
  4: { per: 'workspace', perMinute: 100, burst: 10 },
} as const satisfies Record<number, PublishedLimit>

/**
 * Each method's tier, from its reference page's "Rate limits" (https://docs.slack.dev/reference/methods/<method>).
 * A method not listed is not limited by the fake.
 */
export const SLACK_PUBLISHED_LIMITS: Readonly<Record<string, readonly PublishedLimit[]>> = {
  'chat.postMessage': [
    { per: 'channel', perMinute: 60, burst: 1 },
    // "several hundred messages per minute": 300 read as the floor of "several hundred".
    { per: 'workspace', perMinute: 300, burst: 10 },
  ],
  'chat.update': [TIER[3]],
  'chat.delete': [TIER[3]],
  'chat.postEphemeral': [TIER[4]],
  'reactions.add': [TIER[3]],
  'reactions.remove': [TIER[2]],
  // Tier 3 for internal and Marketplace apps (the rate-limit page's "App types and rate limits").
  'conversations.history': [TIER[3]],
  'conversations.replies': [TIER[3]],
  'conversations.open': [TIER[3]],
  'users.lookupByEmail': [TIER[3]],
  'users.info': [TIER[4]],
  // users.getPresence: "Tier 3: 50+ per minute" (its method facts); users.profile.get: Tier 4.
  'users.getPresence': [TIER[3]],
  'users.profile.get': [TIER[4]],
  'usergroups.users.list': [TIER[2]],
  'views.publish': [TIER[4]],
  // The weekly summary's chart: "Rate limits Tier 4" on both reference pages.
  'files.getUploadURLExternal': [TIER[4]],
  'files.completeUploadExternal': [TIER[4]],
}
