const SCHEME_AND_REST = /^([a-z][a-z0-9+.-]*:\/\/)(.*)$/is
const SECRET_PARAMETER = /([?&](?:password|passwd|pass|pwd|secret|token|sslpassword)=)[^&#]*/gi

/**
 * A URL as it may be shown in a message or log line: any user-info (`user:password@`) becomes `***@`, and so
 * does the value of a query parameter that carries a password (`?password=…`, as PostgreSQL URLs allow).
 * Works on text that is not a valid URL too, since an invalid database URL is exactly what an error message
 * echoes: then everything between `://` and the last `@` is hidden, which may hide more than the user-info
 * but never less (a password may hold a `/` that ends the authority of a valid URL early).
 */
export function redactUrl(url: string): string {
  return hideUserInfo(url).replace(SECRET_PARAMETER, '$1***')
}

function hideUserInfo(url: string): string {
  const match = SCHEME_AND_REST.exec(url)
  if (!match) return url
  const scheme = match[1]!
  let rest = match[2]!
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  if (parsed) {
    // `postgres://app:5432/secretpw@db/prod`: a password with an unencoded `/` parses as host:port and a path
    // holding `@`; everything up to that `@` is hidden all the same.
    if (parsed.username === '' && parsed.password === '' && !hasUnencodedUserInfo(url)) return url
    if (parsed.username !== '' || parsed.password !== '') rest = rest.replace(/[/?#].*$/s, '') // a valid URL's user-info ends before its path
  }
  const at = rest.lastIndexOf('@')
  return at < 0 ? url : `${scheme}***${match[2]!.slice(at)}`
}

/**
 * A PostgreSQL URL with an `@` after its authority (before any query or fragment): user-info whose password
 * holds an unencoded `/`. A database name never holds `@`; other URLs' paths may (`/@handle`).
 */
export function hasUnencodedUserInfo(url: string): boolean {
  if (!/^postgres(ql)?:\/\//i.test(url)) return false
  const rest = SCHEME_AND_REST.exec(url)?.[2] ?? ''
  const beforeQuery = rest.replace(/[?#].*$/s, '')
  const slash = beforeQuery.indexOf('/')
  return slash >= 0 && beforeQuery.indexOf('@', slash) > slash
}

const EMBEDDED_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi

/**
 * Free text that may quote a URL (fetch's "Request cannot be constructed from a URL that includes
 * credentials: http://user:pw@…"), with the user-info of every URL in it hidden.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(EMBEDDED_USER_INFO, '$1***@').replace(SECRET_PARAMETER, '$1***')
}
