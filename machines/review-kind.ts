/**
 * What a person can do to a pull request from Slack: the message's review actions, the form the
 * store keeps, the host's review call. One list, so the three never disagree.
 */
export const REVIEW_KINDS = ['approve', 'request_changes', 'comment'] as const
export type ReviewKind = (typeof REVIEW_KINDS)[number]
