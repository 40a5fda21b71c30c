import { PrheraldError } from '../errors.ts'
import type { Env } from './contract.ts'
import type { OAuthClient } from './talk-back-contract.ts'
import { trimBase } from './talk-back-http.ts'

/**
 * A host's OAuth client from its two variables and its web address: none when both are unset (no linking
 * on that host), an error naming the missing one when only one is set.
 */
export function readOAuthClient(env: Env, names: { clientId: string; clientSecret: string }, webUrl: { value: string; variable: string }): OAuthClient | undefined {
  const clientId = env[names.clientId]?.trim() || undefined
  const clientSecret = env[names.clientSecret]?.trim() || undefined
  if (clientId === undefined && clientSecret === undefined) return undefined
  if (clientId === undefined || clientSecret === undefined) {
    const missing = clientId === undefined ? names.clientId : names.clientSecret
    throw new PrheraldError('config_invalid', `${missing} is not set, but ${missing === names.clientId ? names.clientSecret : names.clientId} is`, {
      fix: `set both ${names.clientId} and ${names.clientSecret} (the OAuth application's client id and secret), or neither to turn linking off on this host`,
    })
  }
  let url: URL
  try {
    url = new URL(webUrl.value)
  } catch {
    throw new PrheraldError('config_invalid', `${webUrl.variable} is not a URL`, { fix: `set ${webUrl.variable} to the host's web address, such as https://github.example.com` })
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new PrheraldError('config_invalid', `${webUrl.variable} must be an http(s) URL`, { fix: `set ${webUrl.variable} to the host's web address, such as https://github.example.com` })
  }
  return { clientId, clientSecret, webUrl: trimBase(url.toString()) }
}
