import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { randomBytes } from 'node:crypto'
import type { Env } from '../../src/config/load-config.ts'
import { createTestGithubApp, type TestGithubApp } from '../helpers/fake-github-app.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab } from '../helpers/fake-gitlab.ts'
import { startFakeOAuthHost, type FakeHostKind } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * prherald-doctor's [talk-back] lines through the built CLI, against the fake Slack (its auth.test reports the
 * token's scopes) and the fake GitHub with an App whose installation grants what the test says.
 */
const KEY = randomBytes(32).toString('base64')
const SIGNING_SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0'
const CLIENT = { GITHUB_OAUTH_CLIENT_ID: 'Iv1.0a1b2c3d4e5f6a7b', GITHUB_OAUTH_CLIENT_SECRET: 'oauth-client-secret-5c1d9e' }
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub | undefined
let app: TestGithubApp

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  app = createTestGithubApp(dir.path)
})
afterEach(async () => {
  await slack.close()
  await github?.close()
  github = undefined
  dir.remove()
})

function configure(talkBack: Record<string, string> | undefined, tiers: Record<string, unknown> = {}): void {
  writeConfig(dir.path, {
    git_provider: 'github',
    ...(talkBack ? { slack: { talk_back: talkBack } } : {}),
    mappings: { acme: { api: { channel: 'C0000000001', ...tiers } } },
  })
}
const doctor = async (extra: Env = {}) => runCliAsync('doctor', [], testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, ...extra }), dir.path)
/** The [talk-back] section's lines, without their column padding. */
function talkBackLines(stdout: string): string[] {
  const section = stdout.split(/^\[talk-back\]$/m)[1]?.split(/^\S/m)[0] ?? ''
  return section.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().replace(/ {2,}/g, '  '))
}

describe('prherald-doctor [talk-back]', () => {
  it('prints nothing of it while talk-back is off everywhere', async () => {
    configure(undefined)
    const off = await doctor()
    expect(off.stdout).not.toContain('[talk-back]')
    configure({ thread_replies: 'off', reviews: 'off' })
    expect((await doctor()).stdout).not.toContain('[talk-back]')
  })

  it('with reviews on in one mapping entry, FAILs each missing piece with its fix and never prints a secret', async () => {
    configure(undefined, { slack: { talk_back: { reviews: 'on' } } })
    const missing = await doctor({ PRHERALD_PUBLIC_URL: 'http://prherald.example.com' })
    expect(missing.status).toBe(1)
    expect(talkBackLines(missing.stdout)).toEqual([
      'FAIL  oauth client  GITHUB_OAUTH_CLIENT_ID  GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET are unset: nobody can link a GitHub account, so reviews and linked replies cannot be made',
      'fix: create GitHub\'s OAuth application (docs/talk-back.md#turning-it-on) and set both variables',
      expect.stringMatching(/^FAIL {2}public url {2}PRHERALD_PUBLIC_URL {2}http:\/\/prherald\.example\.com is http:\/\//),
      expect.stringMatching(/^fix: set PRHERALD_PUBLIC_URL to the https:\/\//),
      'FAIL  token key  PRHERALD_TOKEN_KEY  not set: people\'s tokens cannot be sealed, so nobody can link',
      expect.stringMatching(/^fix: generate one with `openssl rand -base64 32`/),
      'FAIL  slack requests  SLACK_SIGNING_SECRET  unset and no Socket Mode: Slack\'s events (thread replies) and clicks (reviews) cannot reach prherald',
      expect.stringMatching(/^fix: set SLACK_SIGNING_SECRET/),
      'WARN  slack scope  commands  the token lacks commands, which disables /prherald link (the Home tab\'s link button still works)',
      expect.stringMatching(/^fix: add the bot scope commands .*reinstall the app/),
      'WARN  slack scope  im:write  the token lacks im:write, which disables the direct message when a link ends',
      expect.stringMatching(/^fix: add the bot scope im:write /),
    ])

    const short = Buffer.alloc(16, 7).toString('base64')
    const half = await doctor({ GITHUB_OAUTH_CLIENT_ID: CLIENT.GITHUB_OAUTH_CLIENT_ID, PRHERALD_TOKEN_KEY: short, PRHERALD_PUBLIC_URL: 'http://127.0.0.1:8080' })
    const lines = talkBackLines(half.stdout)
    expect(lines).toContain('FAIL  oauth client  GITHUB_OAUTH_CLIENT_ID  GITHUB_OAUTH_CLIENT_SECRET is not set, but GITHUB_OAUTH_CLIENT_ID is')
    expect(lines).toContain('FAIL  token key  PRHERALD_TOKEN_KEY  PRHERALD_TOKEN_KEY must be 32 bytes in base64; it decodes to 16 bytes')
    expect(lines).toContain('OK  public url  PRHERALD_PUBLIC_URL  the OAuth callbacks are http://127.0.0.1:8080/oauth/<host>/callback')
    expect(half.stdout + half.stderr).not.toContain(short)
    expect(half.stdout + half.stderr).not.toContain(CLIENT.GITHUB_OAUTH_CLIENT_ID)
  })

  it('passes once everything is set, the event subscriptions said as a step it cannot check', async () => {
    configure({ thread_replies: 'linked', reviews: 'on' })
    slack.scopes.push('commands', 'im:write')
    // The OAuth application's own client at the host's token endpoint (the fake answers as GitHub does).
    const host = await startFakeOAuthHost('github')
    const client = { GITHUB_OAUTH_CLIENT_ID: host.client.clientId, GITHUB_OAUTH_CLIENT_SECRET: host.client.clientSecret, GITHUB_WEB_URL: host.url }
    const ok = await doctor({ ...client, PRHERALD_TOKEN_KEY: KEY, PRHERALD_PUBLIC_URL: 'https://prherald.example.com', SLACK_SIGNING_SECRET: SIGNING_SECRET }).finally(() => host.close())
    expect(talkBackLines(ok.stdout)).toEqual([
      `OK  oauth client  GITHUB_OAUTH_CLIENT_ID  GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET set; GitHub's OAuth pages at ${host.url}`,
      'OK  public url  PRHERALD_PUBLIC_URL  the OAuth callbacks are https://prherald.example.com/oauth/<host>/callback',
      'OK  token key  PRHERALD_TOKEN_KEY  set, 32 bytes',
      'OK  slack requests  SLACK_SIGNING_SECRET  set: thread replies arrive at /webhook/slack/events, review clicks at /webhook/slack/interactions',
      'OK  oauth client taken  GITHUB_OAUTH_CLIENT_ID  GitHub\'s token endpoint took GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET (it refused only a made-up refresh token)',
      'OK  slack scopes  SLACK_BOT_TOKEN  the token has channels:history, groups:history, reactions:write, chat:write, commands, im:write',
      'SKIP  slack events  message.channels, message.groups  cannot be read with the bot token: the Slack app must subscribe to these bot events (docs/slack-app.md#talk-back)',
    ])
    expect(ok.status).toBe(0)
    for (const secret of [KEY, client.GITHUB_OAUTH_CLIENT_SECRET, SIGNING_SECRET]) expect(ok.stdout + ok.stderr).not.toContain(secret)
  })

  it('FAILs thread replies without channels:history: Slack would send no message event', async () => {
    github = await startFakeGithub()
    configure({ thread_replies: 'everyone' })
    slack.scopes.splice(0, slack.scopes.length, 'chat:write', 'reactions:write')
    const lines = talkBackLines((await doctor({ SLACK_SIGNING_SECRET: SIGNING_SECRET, GITHUB_TOKEN: 'ghp_prherald0token1', GITHUB_API_URL: github.url })).stdout)
    expect(lines).toContain('FAIL  slack scope  channels:history  the token lacks channels:history, which talk-back needs for thread replies in public channels (Slack sends their message events only with it)')
    expect(lines).toContain('WARN  slack scope  groups:history  the token lacks groups:history, which disables thread replies in private channels')
    // everyone alone: nobody needs to link, so no public URL nor key is asked for, and the client is optional.
    expect(lines).toContain('SKIP  oauth client  GITHUB_OAUTH_CLIENT_ID  unset (optional with thread_replies: everyone): nobody links a GitHub account, prherald posts every reply')
    expect(lines.some((l) => l.includes('PRHERALD_TOKEN_KEY') || l.includes('PRHERALD_PUBLIC_URL'))).toBe(false)
    expect(lines).toContain('SKIP  slack events  message.channels, message.groups  cannot be read with the bot token: the Slack app must subscribe to these bot events (docs/slack-app.md#talk-back)')
    // A fine-grained token's permissions cannot be read: said, with what it needs.
    expect(lines).toContain('SKIP  own comments  GITHUB_TOKEN  not checked: GitHub does not tell a fine-grained token\'s permissions; it needs a GitHub App: Pull requests (or Issues): Read and write, its comments shown as <app>[bot]; a token: classic repo, fine-grained Pull requests: Read and write')
  })

  it('reads a classic GitHub token\'s scopes for prherald\'s own comments, once for every owner', async () => {
    github = await startFakeGithub()
    writeConfig(dir.path, { git_provider: 'github', slack: { talk_back: { thread_replies: 'everyone' } }, mappings: { acme: { api: { channel: 'C0000000001' } }, beta: { web: { channel: 'C0000000002' } } } })
    const env = { SLACK_SIGNING_SECRET: SIGNING_SECRET, GITHUB_TOKEN: 'ghp_prherald0token1', GITHUB_API_URL: github.url }
    github.tokenScopes = ['read:org', 'admin:repo_hook']
    const lacking = talkBackLines((await doctor(env)).stdout).filter((l) => l.includes('own comments'))
    expect(lacking).toEqual(['FAIL  own comments  GITHUB_TOKEN  the classic token has the scopes read:org, admin:repo_hook: prherald cannot comment for people who are not linked'])
    github.tokenScopes = ['repo', 'read:org']
    expect(talkBackLines((await doctor(env)).stdout)).toContain('OK  own comments  GITHUB_TOKEN  the classic token has the scopes repo, read:org: prherald can post the replies of people who are not linked')
  })

  it('reads a GitLab token\'s scopes (api), says plainly where GitLab or Bitbucket cannot tell', async () => {
    const gitlab = await startFakeGitlab()
    try {
      writeConfig(dir.path, { git_provider: 'gitlab', slack: { talk_back: { thread_replies: 'everyone' } }, mappings: { acme: { api: { channel: 'C0000000001' } } } })
      const env = testEnv(dir.path, 'gitlab', { SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: SIGNING_SECRET, GITLAB_TOKEN: 'glpat-prherald0token1', GITLAB_API_URL: gitlab.url })
      const run = async () => talkBackLines((await runCliAsync('doctor', [], env, dir.path)).stdout).filter((l) => l.includes('own comments'))
      gitlab.tokenScopes = ['read_api']
      expect(await run()).toEqual(['FAIL  own comments  GITLAB_TOKEN  the token has the scopes read_api: prherald cannot comment for people who are not linked'])
      gitlab.tokenScopes = ['api']
      expect(await run()).toEqual(['OK  own comments  GITLAB_TOKEN  the token has the scopes api: prherald can post the replies of people who are not linked'])
      gitlab.tokenScopes = undefined
      expect(await run()).toEqual(['SKIP  own comments  GITLAB_TOKEN  not checked: this GitLab does not tell a token\'s scopes (GET /personal_access_tokens/self: 404); it needs GITLAB_TOKEN with the api scope (read_api cannot comment) and at least the Reporter role in the project'])
    } finally {
      await gitlab.close()
    }
    writeConfig(dir.path, { git_provider: 'bitbucket', slack: { talk_back: { thread_replies: 'everyone' } }, mappings: { acme: { api: { channel: 'C0000000001' } } } })
    const bitbucket = await runCliAsync('doctor', [], testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url, BITBUCKET_TOKEN: 'bb-prherald-token', BITBUCKET_API_URL: 'http://127.0.0.1:9/2.0' }), dir.path)
    expect(talkBackLines(bitbucket.stdout)).toContain('SKIP  own comments  BITBUCKET_TOKEN  not checked: Bitbucket does not tell a token\'s permissions; it needs BITBUCKET_TOKEN (an access token or API token) with pullrequest:write (Pull requests: Write)')
  })

  it('reads a GitHub App installation\'s permissions for prherald\'s own comments (thread_replies: everyone)', async () => {
    github = await startFakeGithub()
    app.state.installations.set('acme', { id: 101, type: 'Organization' })
    github.app = app.state
    configure({ thread_replies: 'everyone' })
    const env = { GITHUB_APP_ID: String(app.id), GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile, GITHUB_API_URL: github.url, SLACK_SIGNING_SECRET: SIGNING_SECRET }
    app.state.permissions = { pull_requests: 'read', metadata: 'read' }
    const readOnly = talkBackLines((await doctor(env)).stdout)
    expect(readOnly).toContain('FAIL  own comments  acme  the installation has pull_requests: read, issues: none: prherald cannot comment for people who are not linked')
    expect(readOnly.find((l) => l.startsWith('fix: give prherald a GitHub App: Pull requests (or Issues): Read and write'))).toBeDefined()
    app.state.permissions = { pull_requests: 'write', metadata: 'read' }
    const granted = await doctor(env)
    expect(talkBackLines(granted.stdout)).toContain('OK  own comments  acme  the installation has pull_requests: write, issues: none: prherald can post the replies of people who are not linked')
  })

  const OAUTH_VARIABLES: Record<FakeHostKind, { id: string; secret: string; web: string }> = {
    github: { id: 'GITHUB_OAUTH_CLIENT_ID', secret: 'GITHUB_OAUTH_CLIENT_SECRET', web: 'GITHUB_WEB_URL' },
    gitlab: { id: 'GITLAB_OAUTH_CLIENT_ID', secret: 'GITLAB_OAUTH_CLIENT_SECRET', web: 'GITLAB_API_URL' },
    bitbucket: { id: 'BITBUCKET_OAUTH_CLIENT_ID', secret: 'BITBUCKET_OAUTH_CLIENT_SECRET', web: 'BITBUCKET_WEB_URL' },
  }
  const NAMES: Record<FakeHostKind, string> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' }
  for (const kind of ['github', 'gitlab', 'bitbucket'] as const) {
    it(`asks ${kind}'s token endpoint whether it takes the OAuth client: the right secret OK, a rotated one FAIL with the variables to set`, async () => {
      const host = await startFakeOAuthHost(kind)
      try {
        writeConfig(dir.path, { git_provider: kind, slack: { talk_back: { thread_replies: 'linked', reviews: 'on' } }, mappings: { acme: { api: { channel: 'C0000000001' } } } })
        const v = OAUTH_VARIABLES[kind]
        const run = async (secret: string) => {
          const env = testEnv(dir.path, kind, {
            SLACK_API_URL: slack.url, PRHERALD_TOKEN_KEY: KEY, PRHERALD_PUBLIC_URL: 'https://prherald.example.com', SLACK_SIGNING_SECRET: SIGNING_SECRET,
            [v.id]: host.client.clientId, [v.secret]: secret, [v.web]: kind === 'gitlab' ? host.apiUrl : host.url,
          })
          const result = await runCliAsync('doctor', [], env, dir.path)
          const lines = talkBackLines(result.stdout)
          const at = lines.findIndex((l) => l.includes('oauth client taken'))
          expect(result.stdout + result.stderr).not.toContain(secret)
          return { status: result.status, line: lines[at], fix: lines[at + 1] }
        }
        const right = await run(host.client.clientSecret)
        expect(right.line).toBe(`OK  oauth client taken  ${v.id}  ${NAMES[kind]}'s token endpoint took ${v.id} and ${v.secret} (it refused only a made-up refresh token)`)
        // The made-up refresh token was sent, and refused: nobody's tokens came of it.
        expect(host.requests.some((r) => r.body.grant_type === 'refresh_token' && r.body.refresh_token === 'prherald-doctor-made-up-refresh-token')).toBe(true)
        expect(host.refreshes).toBe(0)
        const rotated = await run('the-secret-before-rotation')
        expect(rotated.status).toBe(1)
        expect(rotated.line).toMatch(new RegExp(`^FAIL {2}oauth client taken {2}${v.id} {2}${NAMES[kind]}'s token endpoint did not take prherald's OAuth client: `))
        expect(rotated.fix).toBe(`fix: set ${v.id} and ${v.secret} to the client id and secret of ${NAMES[kind]}'s OAuth application (a secret rotated at ${NAMES[kind]} must be set here too), then restart prherald (docs/talk-back.md#the-variables)`)
        host.tokenFault = 'html'
        const unwell = await run(host.client.clientSecret)
        expect(unwell.line).toMatch(/^WARN {2}oauth client taken {2}\S+ {2}not checked: /)
      } finally {
        await host.close()
      }
    })
  }
})
