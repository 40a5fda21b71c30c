import { HTTPResponse, type H3Event } from 'h3'
import { errorFields, type Logger } from '../log/logger.ts'
import { completeLink, type LinkResult } from '../talk-back/complete-link.ts'
import type { TalkBack } from '../talk-back/create-talk-back.ts'
import { FLOW_TTL_MS } from '../talk-back/oauth-flows.ts'
import { auditTalkBack } from '../talk-back/person-limits.ts'

/**
 * `/oauth/<host>/start` and `/oauth/<host>/callback` (docs/talk-back.md, "Whose account it is"), for the hosts
 * people can link here. The link `/prherald link` gives carries a state made for the Slack user who asked;
 * `/start` binds it to the first browser that opens it (a cookie) and sends that browser to the host;
 * the callback finishes it only in that browser, and links only the account `users:` maps to that person.
 * Both answer a small page; a token never appears in one, nor in a log line.
 */
export interface OAuthRouteDeps {
  talkBack: TalkBack
  logger: Logger
  /** After a link: the person's home tab shows it (best effort). */
  linked?: (slackUser: string) => Promise<void>
}

const cookieName = (host: string) => `prherald_oauth_${host}`

/** Lax: the host's redirect back is a top-level GET, which carries it; Path=/oauth/: no other route sees it. */
const setCookie = (host: string, value: string, maxAgeSeconds: number) =>
  `${cookieName(host)}=${value}; Max-Age=${maxAgeSeconds}; Path=/oauth/; HttpOnly; Secure; SameSite=Lax`

function cookieOf(event: H3Event, host: string): string | undefined {
  const wanted = `${cookieName(host)}=`
  for (const part of (event.req.headers.get('cookie') ?? '').split(';')) {
    const trimmed = part.trim()
    if (trimmed.startsWith(wanted)) return trimmed.slice(wanted.length) || undefined
  }
  return undefined
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** The page: no script, no outside resource, not framed, not cached, and no Referer carrying the code on. */
function page(status: number, title: string, message: string, headers: Record<string, string> = {}): HTTPResponse {
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>prherald: ${escapeHtml(title)}</title></head>\n<body style="font-family:sans-serif;max-width:36em;margin:3em auto">` +
    `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n</body></html>\n`
  return new HTTPResponse(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'", 'x-content-type-options': 'nosniff',
      ...headers,
    },
  })
}

const START_WORDS = {
  unknown: 'This link was already used, or is not one prherald made. Ask for a new one with /prherald link.',
  expired: 'This link is more than ten minutes old. Ask for a new one with /prherald link.',
  wrong_browser: 'This link was already opened in another browser, and only that browser can finish it. If that was not you, ask for a new link with /prherald link and open it yourself, without forwarding it.',
} as const

const STATUS: Record<Exclude<LinkResult, { outcome: 'linked' }>['reason'], number> = {
  unknown: 400, expired: 400, wrong_browser: 400, denied: 400, wrong_account: 403, host_refused: 502, host_unavailable: 502, not_configured: 404,
}

export function oauthRoutes(deps: OAuthRouteDeps) {
  const { talkBack, logger } = deps

  async function start(event: H3Event, host: string): Promise<HTTPResponse> {
    const state = event.url.searchParams.get('state')
    if (!state) return page(400, 'Incomplete link', 'This link has no state. Use the link /prherald link gives you, whole.')
    const started = await talkBack.flows.start(state, host)
    if (started.outcome !== 'started') return page(400, 'Link refused', START_WORDS[started.outcome])
    const authorize = talkBack.authorizeUrl(host, { state, codeChallenge: started.codeChallenge })
    if (!authorize) return page(404, 'Not available', 'Linking accounts on this host is not configured here.')
    return new HTTPResponse(null, {
      status: 302,
      headers: { location: authorize, 'set-cookie': setCookie(host, started.cookie, FLOW_TTL_MS / 1000), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    })
  }

  async function callback(event: H3Event, host: string): Promise<HTTPResponse> {
    const query = event.url.searchParams
    const state = query.get('state')
    if (!state) return page(400, 'Incomplete answer', `The answer from the host has no state. Start again with /prherald link ${host}.`)
    const result = await completeLink(talkBack.callback, {
      state, code: query.get('code') ?? undefined, cookie: cookieOf(event, host), error: query.get('error') ?? undefined,
    })
    // A flow this browser finished (its cookie matched) is over whatever came of it: the browser forgets its cookie.
    // Any other answer leaves the cookie alone: a link from elsewhere with a made-up state must not end a flow in progress.
    const clear: Record<string, string> = result.slackUser !== undefined ? { 'set-cookie': setCookie(host, '', 0) } : {}
    if (result.slackUser !== undefined) {
      auditTalkBack(logger, {
        // The account that tried, refused or not: a refused one is what the operator needs to see.
        slackUser: result.slackUser, host: result.host ?? host, login: result.outcome === 'linked' ? result.login : result.tried,
        action: 'link', pr: '-', outcome: result.outcome === 'linked' ? 'linked' : result.reason,
      })
    } else {
      logger.info('oauth callback refused', { host, reason: result.outcome === 'refused' ? result.reason : undefined })
    }
    if (result.outcome === 'linked') {
      await deps.linked?.(result.slackUser).catch((error: unknown) => logger.warn('home tab not republished after a link', { slack_user: result.slackUser, ...errorFields(error) }))
      const name = talkBack.callback.hostOf(result.host).words.name
      return page(200, 'Linked', `Your ${name} account ${result.login} is linked to prherald. You can close this page and go back to Slack.`, clear)
    }
    return page(STATUS[result.reason], 'Not linked', result.message, clear)
  }

  return { start, callback }
}
