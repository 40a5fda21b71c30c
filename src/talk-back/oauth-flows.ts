import { createHash, randomBytes } from 'node:crypto'
import type { TalkBackStore } from '../store/talk-back-store.ts'

/**
 * The OAuth flows between `/oauth/<host>/start` and `/oauth/<host>/callback` (docs/talk-back.md, "Whose
 * account it is"). `begin` makes the state for the authorize URL, the cookie value `/start` sets on the
 * browser, and the PKCE pair; `finish` gives the flow back once, within ten minutes, and only to the browser
 * that carries the cookie: a browser that did not start the flow cannot complete it, and a link forwarded
 * to someone else fails there (and at the account check after it).
 */
export const FLOW_TTL_MS = 10 * 60_000

export interface StartedFlow {
  state: string
  /** The value of the cookie `/start` sets (HttpOnly, Secure, SameSite=Lax, path /oauth/). */
  cookie: string
  codeChallenge: string
}

export type FinishedFlow =
  | { outcome: 'taken'; slackUser: string; host: string; codeVerifier: string }
  | { outcome: 'unknown' | 'expired' | 'wrong_browser' }

export interface OAuthFlows {
  begin(slackUser: string, host: string): Promise<StartedFlow>
  finish(state: string, cookie: string | undefined): Promise<FinishedFlow>
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex')
const secret = () => randomBytes(32).toString('base64url')

export function createOAuthFlows(deps: { store: TalkBackStore; now: () => number; ttlMs?: number }): OAuthFlows {
  const ttl = deps.ttlMs ?? FLOW_TTL_MS
  return {
    async begin(slackUser, host) {
      const state = secret()
      const cookie = secret()
      const codeVerifier = secret()
      const at = deps.now()
      await deps.store.saveOAuthState({ stateHash: digest(state), host, slackUser, cookieHash: digest(cookie), codeVerifier, expiresAt: at + ttl, createdAt: at })
      return { state, cookie, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') }
    },
    async finish(state, cookie) {
      // No cookie: this browser started nothing ('' is no digest); the flow stays for the one that did.
      const taken = await deps.store.takeOAuthState(digest(state), cookie ? digest(cookie) : '', deps.now())
      if (taken.outcome !== 'taken') return { outcome: taken.outcome }
      return { outcome: 'taken', slackUser: taken.flow.slackUser, host: taken.flow.host, codeVerifier: taken.flow.codeVerifier }
    },
  }
}
