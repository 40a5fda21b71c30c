/** The triggers prherald decodes; a webhook missing one silently drops that part of the lifecycle. */
export const BITBUCKET_REQUIRED_EVENTS = [
  'pullrequest:created', 'pullrequest:updated', 'pullrequest:approved', 'pullrequest:unapproved',
  'pullrequest:changes_request_created', 'pullrequest:changes_request_removed',
  'pullrequest:fulfilled', 'pullrequest:rejected', 'pullrequest:comment_created',
] as const
/**
 * Edits and deletions of comments: only `slack.talk_back.mirror` reads them. The setup steps tick them; the
 * doctor does not ask for them (without mirroring nothing is missing).
 */
export const BITBUCKET_OPTIONAL_EVENTS = ['pullrequest:comment_updated', 'pullrequest:comment_deleted'] as const
