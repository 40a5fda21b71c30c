/**
 * The database credentials that must never reach a log line or a message: the password inside a PostgreSQL
 * URL (as written and decoded) and the standard PGPASSWORD the driver reads itself. Empty for a SQLite file.
 */
export function databaseSecrets(url: string, env: Record<string, string | undefined>): string[] {
  const secrets: string[] = []
  if (env.PGPASSWORD) secrets.push(env.PGPASSWORD)
  try {
    const parsed = new URL(url)
    if (parsed.password) secrets.push(parsed.password, decodeURIComponent(parsed.password))
    for (const [key, value] of parsed.searchParams) if (/^(ssl)?password$/i.test(key) && value) secrets.push(value)
  } catch {
    // Not a URL: a SQLite path, which holds no credential.
  }
  return [...new Set(secrets)]
}
