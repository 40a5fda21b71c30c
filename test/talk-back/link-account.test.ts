import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { freePort } from '../helpers/free-port.ts'
import { consent, followCallback, linkIn, openLink } from '../helpers/oauth-browser.ts'
import { personalHarness } from '../helpers/personal-setup.ts'
import { rawRequest } from '../helpers/raw-request.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { nextRunOf, startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { ALICE, linkInSqlite, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'

/**
 * Issue 33.1 end to end, on a real server with the fake Slack and each host's fake OAuth server:
 * `/prherald link <host>` → the private link → /start (cookie, redirect to the host) → the host's answer at
 * /callback → linked, sealed at rest → listed → `/prherald unlink` → revoked at the host and gone. And the
 * refusals: a state used twice, expired, finished in another browser, authorised by another account,
 * an unknown host; a refused refresh tells the person once.
 */
const MALLORY = 'U0MALLORY'
const COMMANDS = '/webhook/slack/commands'
const KINDS = ['github', 'gitlab', 'bitbucket'] as const
/** Each host's name as people read it on the pages and in Slack, written here rather than taken from src/. */
const HOST_NAME = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' } as const
const ACCOUNTS = [{ login: 'alice', accountId: '557058:alice' }, { login: 'mallory', accountId: '557058:mallory' }]
const KEY = newTokenKey()

describe.each(KINDS)('linking a %s account', (kind) => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))
  let oauth: FakeOAuthHost
  const clock = { now: Date.parse('2026-11-25T09:00:00Z') }

  beforeEach(async () => {
    clock.now = Date.parse('2026-11-25T09:00:00Z')
    oauth = await startFakeOAuthHost(kind, { accounts: ACCOUNTS })
    h.slack.users.set(ALICE, { tz: 'Europe/Berlin' })
    h.slack.users.set(MALLORY, { tz: 'Europe/Berlin' })
    const key = (login: string) => (kind === 'bitbucket' ? `557058:${login}` : login)
    writeConfig(h.dir.path, {
      git_provider: kind, users: { [key('alice')]: ALICE, [key('mallory')]: MALLORY },
      slack: { talk_back: { thread_replies: 'linked' } },
      mappings: { acme: { '*': { channel: 'C0000000001' } } },
    })
    const port = await freePort()
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, kind, {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, PRHERALD_LISTEN: `127.0.0.1:${port}`,
      ...talkBackEnv(oauth, { key: KEY, publicUrl: `http://127.0.0.1:${port}` }),
    }), { clock: () => clock.now, directMessageIntervalMs: 50, relinkSweepMs: 50 })
  })
  afterEach(async () => { await oauth.close() })

  const command = async (user: string, text: string) => {
    const res = await sendSignedSlack(h.service!.url, COMMANDS, commandForm(user, text))
    expect(res.status).toBe(200)
    return ((await res.json()) as { text?: string }).text ?? ''
  }
  /** `/prherald link <host>`: the link in the private (ephemeral) answer. */
  const linkFor = async (user: string) => {
    const res = await sendSignedSlack(h.service!.url, COMMANDS, commandForm(user, `link ${kind}`))
    const answer = (await res.json()) as { text: string; response_type: string }
    expect(answer.response_type).toBe('ephemeral')
    const url = linkIn(answer.text)
    expect(url, answer.text).toBeDefined()
    return url!
  }
  const callback = followCallback
  const linkAlice = async () => {
    const opened = await openLink(await linkFor(ALICE))
    return callback(await consent(opened.location), opened.cookie)
  }
  const rawRows = () => {
    const db = new Database(join(h.dir.path, 'prherald.db'), { readonly: true })
    try { return db.prepare('SELECT * FROM linked_accounts').all() as Array<Record<string, unknown>> } finally { db.close() }
  }

  it('links through /start and the callback, lists it, keeps it sealed, and unlinks it', async () => {
    const opened = await openLink(await linkFor(ALICE))
    expect(opened.res.status).toBe(302)
    expect(opened.res.headers.get('set-cookie')).toMatch(new RegExp(`^prherald_oauth_${kind}=[\\w-]+; Max-Age=600; Path=/oauth/; HttpOnly; Secure; SameSite=Lax$`))
    const authorize = new URL(opened.location)
    expect(authorize.origin).toBe(oauth.url)
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.service!.url}/oauth/${kind}/callback`)
    const back = await consent(opened.location)
    expect(back.startsWith(`${h.service!.url}/oauth/${kind}/callback?`)).toBe(true)

    const done = await callback(back, opened.cookie)
    expect(done.status).toBe(200)
    expect(done.type).toBe('text/html; charset=utf-8')
    expect(done.html).toContain(`Your ${HOST_NAME[kind]} account alice is linked to prherald.`)

    // Sealed at rest: no token the host issued is in the row, or anywhere in the database file.
    const issued = [...oauth.tokens.keys()]
    expect(issued).toHaveLength(1)
    const rows = rawRows()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ slack_user: ALICE, host: kind, login: 'alice' })
    const file = ['prherald.db', 'prherald.db-wal'].map((name) => join(h.dir.path, name)).filter((path) => existsSync(path)).map((path) => readFileSync(path).toString('latin1')).join('')
    for (const token of issued) {
      expect(JSON.stringify(rows)).not.toContain(token)
      expect(file).not.toContain(token)
      expect(done.html).not.toContain(token)
    }

    expect(await command(ALICE, 'link')).toContain(`${HOST_NAME[kind]}: linked as *alice*`)
    const unlinked = await command(ALICE, `unlink ${kind}`)
    if (kind === 'bitbucket') {
      expect(unlinked).toMatch(/^Unlinked: prherald forgot its token\. Bitbucket has no way for prherald to end its access/)
    } else {
      expect(unlinked).toMatch(/^Unlinked: .* ended prherald's access/)
      expect(oauth.revoked).toEqual(issued)
    }
    expect(rawRows()).toEqual([])
    expect(await command(ALICE, 'link')).toMatch(/^No git account of yours is linked yet\./)

    // One audit line for each, and no secret in the log.
    const audits = h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')
    expect(audits.map((e) => [e.action, e.outcome, e.host_login])).toEqual([['link', 'linked', 'alice'], ['unlink', kind === 'bitbucket' ? 'unsupported' : 'revoked', 'alice']])
    const log = h.service!.logs.join('\n')
    const flow = [new URL(back).searchParams.get('state')!, new URL(back).searchParams.get('code')!, opened.cookie!.split('=')[1]!]
    for (const secret of [...issued, oauth.client.clientSecret, KEY, ...flow]) expect(log).not.toContain(secret)
  })

  it('refuses a state used twice, and a browser without the cookie', async () => {
    const opened = await openLink(await linkFor(ALICE))
    const back = await consent(opened.location)
    const stranger = await callback(back, undefined)
    expect(stranger.status).toBe(400)
    expect(stranger.html).toContain('opened in another browser')
    expect((await callback(back, opened.cookie)).status).toBe(200)
    const again = await callback(back, opened.cookie)
    expect(again.status).toBe(400)
    expect(again.html).toContain('already used')
  })

  it('gives a link to the first browser that opens it; a second one is refused', async () => {
    const url = await linkFor(ALICE)
    expect((await openLink(url)).res.status).toBe(302)
    const second = await openLink(url)
    expect(second.res.status).toBe(400)
    expect(second.cookie).toBeUndefined()
    expect(await second.res.text()).toContain('already opened in another browser')
  })

  it('refuses a link older than ten minutes', async () => {
    const url = await linkFor(ALICE)
    clock.now += 10 * 60_000 + 1
    const opened = await openLink(url)
    expect(opened.res.status).toBe(400)
    expect(await opened.res.text()).toContain('more than ten minutes old')
  })

  it('links nothing when a forwarded link is authorised by another account, and ends that token', async () => {
    const url = await linkFor(ALICE)
    // Mallory opens Alice's link first, in her own browser, and consents as herself.
    oauth.authorizer = 'mallory'
    const opened = await openLink(url)
    const done = await callback(await consent(opened.location), opened.cookie)
    expect(done.status).toBe(403)
    expect(done.html).toContain('says this is &quot;')
    expect(done.html).toContain('users:')
    // Whoever holds the browser learns only that it does not match, not which account prherald expects.
    expect(done.html).not.toMatch(/alice/i)
    expect(rawRows()).toEqual([])
    if (kind !== 'bitbucket') expect(oauth.revoked).toEqual([...oauth.tokens.keys()])
    // The audit line names the account that tried.
    expect(h.service!.entries().find((e) => e.msg === 'audit: talk-back action')).toMatchObject({
      slack_user: ALICE, action: 'link', outcome: 'wrong_account', host_login: kind === 'bitbucket' ? '557058:mallory' : 'mallory',
    })
  })

  it('does not call a link linked when the token key cannot open it', async () => {
    // Sealed under another key: PRHERALD_TOKEN_KEY was changed without PRHERALD_TOKEN_KEY_PREVIOUS.
    await linkInSqlite(h.dir.path, { fake: oauth, key: newTokenKey(), accountKey: kind === 'bitbucket' ? '557058:alice' : 'alice' })
    const answer = await command(ALICE, 'link')
    expect(answer).not.toContain('linked as')
    expect(answer).toContain('your link cannot be used here')
  })

  it('leaves a flow in progress alone when a callback with a state it does not know arrives in the same browser', async () => {
    const opened = await openLink(await linkFor(ALICE))
    const back = await consent(opened.location)
    // A page elsewhere sends the person's browser to the callback with a made-up state: the cookie must survive it.
    const forged = await fetch(`${h.service!.url}/oauth/${kind}/callback?state=made-up&code=x`, { redirect: 'manual', headers: { cookie: opened.cookie! } })
    expect(forged.status).toBe(400)
    expect(forged.headers.get('set-cookie')).toBeNull()
    const done = await fetch(back, { redirect: 'manual', headers: { cookie: opened.cookie! } })
    expect(done.status).toBe(200)
    // The flow it belonged to is over: now the cookie goes.
    expect(done.headers.get('set-cookie')).toMatch(new RegExp(`^prherald_oauth_${kind}=; Max-Age=0;`))
  })

  it('says the host answered something it cannot read, not that it refused, when the token endpoint\'s answer is not the host\'s', async () => {
    for (const fault of ['html', 'endless'] as const) {
      const opened = await openLink(await linkFor(ALICE))
      oauth.tokenFault = fault
      const done = await callback(await consent(opened.location), opened.cookie)
      oauth.tokenFault = undefined
      expect(done.status).toBe(502)
      expect(done.html).not.toContain('refused')
      expect(done.html).toContain(fault === 'html' ? 'something prherald cannot read' : 'bytes; not read')
      expect(done.html).toContain('try again')
    }
    expect(rawRows()).toEqual([])
    expect((await linkAlice()).status).toBe(200)
  })

  it('answers 404 for a host it does not link, and says which hosts /prherald link takes', async () => {
    const other = KINDS.find((k) => k !== kind)!
    expect((await fetch(`${h.service!.url}/oauth/${other}/start?state=x`, { redirect: 'manual' })).status).toBe(404)
    expect((await fetch(`${h.service!.url}/oauth/nowhere/callback?state=x`, { redirect: 'manual' })).status).toBe(404)
    expect(await command(ALICE, `link ${other}`)).toBe(`"${other}" is not a host you can link here; write \`/prherald link ${kind}\`.`)
    expect(await command(ALICE, 'help')).toContain('/prherald link <host>')
    // The same gates as every route: a method it does not take, a path one reader resolves and another does not.
    expect((await fetch(`${h.service!.url}/oauth/${kind}/start?state=x`, { method: 'POST', body: 'x' })).status).toBe(405)
    expect((await rawRequest(h.service!.url, `GET /oauth/${kind}/..%2fstart?state=x HTTP/1.1\r\nhost: prherald.example.com\r\n`)).status).toBe(400)
    expect((await fetch(`${h.service!.url}/oauth/${kind}/start`, { redirect: 'manual' })).status).toBe(400)
  })

  it('shows a link button in the home tab, and the login once linked', async () => {
    await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(ALICE, 'Ev1'))
    await waitFor('the home tab', () => h.slack.views.has(ALICE))
    const button = JSON.stringify(h.slack.views.get(ALICE))
    expect(button).toContain(`Link your ${HOST_NAME[kind]} account`)
    expect(button).toContain(`${h.service!.url}/oauth/${kind}/start?state=`)
    expect((await linkAlice()).status).toBe(200)
    await waitFor('the home tab with the login', () => JSON.stringify(h.slack.views.get(ALICE)).includes('linked as *alice*'))
  })

  it('tells the person once, by direct message, when the host refuses to renew the link', async () => {
    expect((await linkAlice()).status).toBe(200)
    // The person removes prherald's grant in the host's settings: its refresh token is refused from then on.
    oauth.endGrant('alice')
    // 23:00 in Berlin, Alice's time zone: outside working hours, and the message is not held for the morning.
    clock.now += 13 * 3_600_000
    expect(await command(ALICE, 'link')).toMatch(/^No git account of yours is linked yet\./)
    await waitFor('the direct message', () => h.slack.messagesIn('D0ALICE').length === 1)
    expect(h.slack.messagesIn('D0ALICE')[0]!.text).toMatch(/is no longer linked to prherald: .* refused to renew its access/)
    expect(await command(ALICE, 'link')).toMatch(/^No git account/)
    expect(await h.service!.settle(5000)).toBe(true)
    // The sender has had a round since the second refusal: still the one message.
    await nextRunOf(h.service!, 'direct-messages')
    expect(h.slack.messagesIn('D0ALICE')).toHaveLength(1)
  })

  it('reminds a person once, by direct message, that an idle link nears its end, where the host says when (GitHub)', async () => {
    expect((await linkAlice()).status).toBe(200)
    // GitHub's refresh token lives 15 811 200 s (183 days); a link nobody used for 170 days ends in 13.
    clock.now += 170 * 24 * 3_600_000
    // A sweep of the idle links after the clock moved, then a round of the sender after that sweep.
    await nextRunOf(h.service!, 'relink-sweep')
    await nextRunOf(h.service!, 'direct-messages')
    const sent = h.slack.messagesIn('D0ALICE')
    if (kind === 'github') {
      expect(sent).toHaveLength(1)
      expect(sent[0]!.text).toMatch(/^Your GitHub link \(\*alice\*\) ends in 13 days: GitHub asks people to authorise again every six months\. Link again with `\/prherald link github`/)
    } else {
      // GitLab and Bitbucket do not say when a refresh token ends: nothing to remind of.
      expect(sent).toEqual([])
    }
  })
})

describe('talk-back turned off', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))
  let oauth: FakeOAuthHost
  afterEach(async () => { await oauth.close() })

  it('has no OAuth route, no /prherald link and no home tab button, whatever the environment holds', async () => {
    oauth = await startFakeOAuthHost('github', { accounts: ACCOUNTS })
    h.slack.users.set(ALICE, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, { git_provider: 'github', users: { alice: ALICE }, mappings: { acme: { '*': { channel: 'C0000000001' } } } })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, PRHERALD_PUBLIC_URL: 'https://prherald.example.com', PRHERALD_TOKEN_KEY: KEY,
      GITHUB_OAUTH_CLIENT_ID: oauth.client.clientId, GITHUB_OAUTH_CLIENT_SECRET: oauth.client.clientSecret, GITHUB_WEB_URL: oauth.url,
    }))
    expect((await fetch(`${h.service.url}/oauth/github/start?state=x`, { redirect: 'manual' })).status).toBe(404)
    const answer = async (text: string) => ((await (await sendSignedSlack(h.service!.url, COMMANDS, commandForm(ALICE, text))).json()) as { text: string }).text
    expect(await answer('link github')).toMatch(/^Unknown command "link"/)
    expect(await answer('help')).not.toContain('/prherald link')
    await sendSignedSlack(h.service.url, '/webhook/slack/events', homeOpened(ALICE, 'Ev1'))
    await waitFor('the home tab', () => h.slack.views.has(ALICE))
    expect(JSON.stringify(h.slack.views.get(ALICE))).not.toContain('Link your')
    expect(oauth.requests).toEqual([])
  })
})
