/**
 * prherald-smoke's synthetic pull requests. Number 0 is one no git host issues (GitHub and Bitbucket
 * number from 1), and the title prefix says what the message is to anyone who sees it in the channel.
 * Both must hold, so a real pull request can never be taken for a smoke test. Pure.
 */
export const SMOKE_PR_NUMBER = 0
export const SMOKE_TITLE_PREFIX = 'prherald smoke test'

export function isSmokePullRequest(number: number | undefined, title: string | undefined): boolean {
  return number === SMOKE_PR_NUMBER && typeof title === 'string' && title.startsWith(SMOKE_TITLE_PREFIX)
}

/** For a decoder: 0 when the payload is a smoke test's (number 0 and the title prefix), else undefined. */
export function smokeNumber(number: unknown, title: string | undefined): typeof SMOKE_PR_NUMBER | undefined {
  return isSmokePullRequest(typeof number === 'number' ? number : undefined, title) ? SMOKE_PR_NUMBER : undefined
}
