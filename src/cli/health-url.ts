import type { ListenAddress } from '../config/settings.ts'

/** Where to reach a server listening on `listen` from the same host: a wildcard address means loopback. */
export function healthUrl(listen: ListenAddress): string {
  const host = listen.host === undefined || listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}/healthz`
}
