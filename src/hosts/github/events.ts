/** The events prherald decodes; a webhook missing one silently drops that part of the lifecycle. */
export const GITHUB_REQUIRED_EVENTS = ['pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment'] as const
/** Check results (a `check_suite` completed, a commit `status`) for "Checks failing" on the message; without them the rest works. */
export const GITHUB_OPTIONAL_EVENTS = ['check_suite', 'status'] as const
