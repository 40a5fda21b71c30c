import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * Checks X-Gitlab-Token against every configured secret in constant time. GitLab sends the secret itself, not a
 * signature of the body: comparing digests keeps the time independent of the length and of where they differ,
 * and every secret is tried so the time does not reveal which one matched (rotation: docs/gitlab.md).
 */
export function verifyToken(secrets: readonly string[], header: string | null | undefined): boolean {
  if (header === null || header === undefined || header === '') return false
  const given = digest(header)
  let valid = false
  for (const secret of secrets) {
    if (secret === '') continue
    valid = timingSafeEqual(digest(secret), given) || valid
  }
  return valid
}
