import { hasUnencodedUserInfo } from '../log/redact-url.ts'
import { isAbsolute, resolve } from 'node:path'
import type { DatabaseTarget, ListenAddress } from './settings.ts'

/**
 * `8080` or `:8080` (every interface), `127.0.0.1:0`, `host:8080`, `[::1]:8080`; undefined when the value is
 * not an address. A host always ends with a colon: `8080` is a port, never host `808` port `0`.
 */
export function parseListen(value: string): ListenAddress | undefined {
  const match = /^(?:(?:\[([^\]]+)\]|([^:[\]\s]+))?:)?(\d{1,5})$/.exec(value.trim())
  if (!match) return undefined
  const port = Number(match[3])
  if (port > 65535) return undefined
  return { host: match[1] ?? match[2], port }
}

/** The address as written in the configuration: `:8080`, `127.0.0.1:8080`, `[::1]:8080`. */
export function formatListen(address: ListenAddress): string {
  const host = address.host === undefined ? '' : address.host.includes(':') ? `[${address.host}]` : address.host
  return `${host}:${address.port}`
}

/** `file:./data/x.db`, `file:///abs/x.db` or a plain path, resolved against `cwd`. */
export function databasePathFromUrl(url: string, cwd: string): string | undefined {
  let path = url
  if (url.startsWith('file://')) {
    // `file://%` or `file://[` is not a URL at all: a problem to report, not an exception to escape.
    try {
      path = decodeURIComponent(new URL(url).pathname)
    } catch {
      return undefined
    }
  } else if (url.startsWith('file:')) path = url.slice('file:'.length)
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined
  if (path === '') return undefined
  return isAbsolute(path) ? path : resolve(cwd, path)
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i

/**
 * `file:…` or a plain path: SQLite; `postgres://` or `postgresql://`: PostgreSQL. undefined for anything
 * else, or a PostgreSQL URL that is not a URL at all.
 */
export function databaseTargetFromUrl(url: string, cwd: string): DatabaseTarget | undefined {
  if (!POSTGRES_URL.test(url)) {
    const path = databasePathFromUrl(url, cwd)
    return path === undefined ? undefined : { kind: 'sqlite', path }
  }
  try {
    new URL(url)
  } catch {
    return undefined
  }
  // The password would be read as a host, port and path (and shown as such): refused, with the fix.
  if (hasUnencodedUserInfo(url)) return undefined
  return { kind: 'postgres', url }
}

/** Whether a PostgreSQL URL carries a password: in its user-info, or as a `password` parameter. */
export function hasUrlPassword(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.password !== '' || [...parsed.searchParams.keys()].some((k) => /^(ssl)?password$/i.test(k))
  } catch {
    return false
  }
}
