import { createHash, randomBytes } from 'node:crypto'
import type { TalkBackStore } from '../store/talk-back-store.ts'

/**
 * The OAuth flows between `/prherald link`, `/oauth/<host>/start` and `/oauth/<host>/callback` (docs/talk-back.md,
 * "Whose account it is"). `begin`, when the person asks in Slack, makes the state their private link carries:
 * the Slack user is taken from Slack's signed request, never from the link. `start` binds the flow to the
 * first browser that opens the link (the cookie `/start` sets) and gives the PKCE challenge; `finish` gives
 * the flow back once, within ten minutes, and only to that browser. A link forwarded to someone else is
 * either theirs alone (they opened it first: the account check after it refuses their account) or refused.
 */
export const FLOW_TTL_MS = 10 * 60_000

export interface StartedFlow {
  outcome: 'started'
  /** The value of the cookie `/start` sets (HttpOnly, Secure, SameSite=Lax, path /oauth/). */
  cookie: string
  codeChallenge: string
}

export type FinishedFlow =
  | { outcome: 'taken'; slackUser: string; host: string; codeVerifier: string }
  | { outcome: 'unknown' | 'expired' | 'wrong_browser' }

export interface OAuthFlows {
  /** A new flow for this Slack user on this host; its state goes in the link `/prherald link` answers with. */
  begin(slackUser: string, host: string): Promise<{ state: string }>
  /** The browser opening `/oauth/<host>/start?state=…`: the first one binds the flow; another gets `wrong_browser`. */
  start(state: string, host: string): Promise<StartedFlow | { outcome: 'unknown' | 'expired' | 'wrong_browser' }>
  finish(state: string, cookie: string | undefined): Promise<FinishedFlow>
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex')
const secret = () => randomBytes(32).toString('base64url')

export function createOAuthFlows(deps: { store: TalkBackStore; now: () => number }): OAuthFlows {
  return {
    async begin(slackUser, host) {
      const state = secret()
      const at = deps.now()
      // No browser yet: cookie_hash '' until /start binds one.
      await deps.store.saveOAuthState({ stateHash: digest(state), host, slackUser, cookieHash: '', codeVerifier: secret(), expiresAt: at + FLOW_TTL_MS, createdAt: at })
      return { state }
    },
    async start(state, host) {
      const cookie = secret()
      const bound = await deps.store.bindOAuthState(digest(state), host, digest(cookie), deps.now())
      if (bound.outcome !== 'taken') return { outcome: bound.outcome }
      return { outcome: 'started', cookie, codeChallenge: createHash('sha256').update(bound.flow.codeVerifier).digest('base64url') }
    },
    async finish(state, cookie) {
      // No cookie: this browser started nothing ('-' is no digest); the flow stays for the one that did.
      const taken = await deps.store.takeOAuthState(digest(state), cookie ? digest(cookie) : '-', deps.now())
      if (taken.outcome !== 'taken') return { outcome: taken.outcome }
      return { outcome: 'taken', slackUser: taken.flow.slackUser, host: taken.flow.host, codeVerifier: taken.flow.codeVerifier }
    },
  }
}
