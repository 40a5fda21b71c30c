import { redactUrl } from '../log/redact-url.ts'

/**
 * Connection URLs carry credentials (`postgres://user:password@host/db`, `?password=`). What prherald
 * prints about one goes through `redactUrl` (src/config/redact-url.ts) or, for the driver's text, here.
 */

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

const SECRET_PARAMS = new Set(['password', 'sslpassword'])

/**
 * `text` with every secret that `url` carries, and `otherSecrets` (a password given apart from the url,
 * such as the standard PGPASSWORD), replaced: a second line of defence for messages written by the
 * driver, which prherald does not control.
 */
export function scrubPostgresSecrets(text: string, url: string, otherSecrets: readonly string[] = []): string {
  const secrets = new Set<string>([url])
  try {
    const parsed = new URL(url)
    if (parsed.password) secrets.add(parsed.password).add(decodeURIComponent(parsed.password))
    for (const [key, value] of parsed.searchParams) if (SECRET_PARAMS.has(key.toLowerCase()) && value) secrets.add(value)
  } catch {
    // An unparseable URL is still replaced whole.
  }
  for (const secret of otherSecrets) secrets.add(secret)
  let out = text
  // Longest first, so the whole URL goes before the password inside it.
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.replaceAll(secret, secret === url ? redactUrl(url) : '***')
  }
  return out
}
