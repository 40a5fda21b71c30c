import { existsSync, readFileSync, statSync, writeFileSync, symlinkSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab } from '../helpers/fake-gitlab.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync, type CliResult } from '../helpers/run-cli-async.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * prherald-setup end to end, unattended (--yes with flags: the prompts need a terminal), against the fake
 * Slack and the fake GitHub: the files it writes, the webhook it creates, and the checks it ends with.
 */
const SLACK_TOKEN = 'xoxb-setup-token-93c1'
const GIT_TOKEN = 'ghp-setup-token-4e7a'
const PUBLIC_URL = 'https://prherald.example.com'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  slack.channels.set('C0DEPLOYS1', { name: 'deploys' })
  slack.channels.set('C0RANDOM01', { name: 'random' })
  slack.channels.set('C0OUTSIDE1', { name: 'outside', is_member: false })
  github = await startFakeGithub()
  github.token = GIT_TOKEN
  github.hooks.set('acme/api', [])
})
afterEach(async () => {
  await slack.close()
  await github.close()
  dir.remove()
})

const env = () => ({ SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, SLACK_BOT_TOKEN: SLACK_TOKEN })
const setup = (args: string[], extraEnv: Record<string, string> = {}) =>
  runCliAsync('setup', args, { ...env(), ...extraEnv }, dir.path)
const githubFlags = ['--yes', '--provider', 'github', '--channel', '#deploys', '--repository', 'acme/api', '--mentions', 'U0123ABCD, here']
const file = (name: string) => join(dir.path, name)
const readEnv = () => parseEnv(readFileSync(file('.env'), 'utf8'))

function expectNoSecrets(result: CliResult, ...secrets: string[]) {
  for (const secret of [SLACK_TOKEN, GIT_TOKEN, ...secrets]) expect(result.stdout + result.stderr).not.toContain(secret)
}

describe('prherald-setup --yes (GitHub)', () => {
  it('writes slack.talk_back and its .env lines with --talk-back-replies: the OAuth client named to fill in, a fresh token key, nothing invented', async () => {
    const result = await setup([...githubFlags, '--public-url', PUBLIC_URL, '--talk-back-replies', 'everyone'])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { slack: unknown }
    expect(config.slack).toEqual({ talk_back: { thread_replies: 'everyone', reviews: 'off' } })
    const text = readFileSync(file('.env'), 'utf8')
    expect(text).toMatch(/^# GITHUB_OAUTH_CLIENT_ID= {3}\(docs\/talk-back\.md#turning-it-on\)$/m)
    expect(text).toMatch(/^# GITHUB_OAUTH_CLIENT_SECRET= /m)
    const written = readEnv()
    expect(written.GITHUB_OAUTH_CLIENT_ID).toBeUndefined()
    expect(Buffer.from(written.PRHERALD_TOKEN_KEY!, 'base64')).toHaveLength(32)
    expectNoSecrets(result, written.PRHERALD_TOKEN_KEY!)
    expect(result.stdout).toContain('note: with everyone, prherald comments with its own credentials, which need a GitHub App: Pull requests (or Issues): Read and write')
    expect(result.stdout).toContain('note: .env names GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET')

    // A second run keeps the key (in the environment and the old .env): a new key would unlink everyone.
    const again = await setup([...githubFlags, '--talk-back-reviews', 'on', '--oauth-client-id', 'Iv1.flag0client', '--oauth-client-secret', 'flag-oauth-secret-77', '--force'],
      { PRHERALD_TOKEN_KEY: written.PRHERALD_TOKEN_KEY! })
    expect(again.status).toBe(0)
    expect(readEnv()).toMatchObject({ GITHUB_OAUTH_CLIENT_ID: 'Iv1.flag0client', GITHUB_OAUTH_CLIENT_SECRET: 'flag-oauth-secret-77' })
    expect(readEnv().PRHERALD_TOKEN_KEY).toBe(written.PRHERALD_TOKEN_KEY)
    expect(again.stdout).toContain('note: without PRHERALD_PUBLIC_URL there is no OAuth callback, so nobody can link')
    expectNoSecrets(again, 'flag-oauth-secret-77')
    expect((parse(readFileSync(file('config.yaml'), 'utf8')) as { slack: unknown }).slack).toEqual({ talk_back: { thread_replies: 'off', reviews: 'on' } })

    // Replaced with --force, the key only in the old .env: written again, not a new one.
    const third = await setup([...githubFlags, '--talk-back-reviews', 'on', '--force', '--public-url', PUBLIC_URL])
    expect(third.status).toBe(0)
    expect(readEnv().PRHERALD_TOKEN_KEY).toBe(written.PRHERALD_TOKEN_KEY)
  })

  it('refuses a wrong talk-back value with the allowed ones, writing nothing', async () => {
    const result = await setup([...githubFlags, '--talk-back-replies', 'all'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('"all" is not one of off, linked, everyone')
    expect(result.stderr).toContain('fix: use --talk-back-replies off|linked|everyone')
    expect(existsSync(file('config.yaml'))).toBe(false)
  })

  it('writes config.yaml and an owner-only .env, creates the webhook, and ends with passing checks', async () => {
    const result = await setup([...githubFlags, '--public-url', PUBLIC_URL, '--git-token', GIT_TOKEN, '--create-webhook'])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)

    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { git_provider: string; mappings: Record<string, Record<string, unknown>> }
    expect(config.git_provider).toBe('github')
    // The channel was given by name and is stored by ID; the mentions as Slack tokens.
    expect(config.mappings.acme!.api).toEqual({ channel: 'C0DEPLOYS1', mentions: ['<@U0123ABCD>', '<!here>'] })

    expect(statSync(file('.env')).mode & 0o777).toBe(0o600)
    const written = readEnv()
    expect(written.SLACK_BOT_TOKEN).toBe(SLACK_TOKEN)
    expect(written.GITHUB_TOKEN).toBe(GIT_TOKEN)
    expect(written.PRHERALD_PUBLIC_URL).toBe(PUBLIC_URL)
    expect(written.GITHUB_WEBHOOK_SECRET).toMatch(/^[0-9a-f]{64}$/)

    // The webhook carries the generated secret, so that deliveries verify against the .env.
    const hooks = github.hooks.get('acme/api')!
    expect(hooks).toHaveLength(1)
    expect(hooks[0]!.config.url).toBe(`${PUBLIC_URL}/webhook/github`)
    expect(hooks[0]!.config.secret).toBe(written.GITHUB_WEBHOOK_SECRET)

    expect(result.stdout).toMatch(/^OK\s+slack-auth\s+SLACK_BOT_TOKEN\s/m)
    expect(result.stdout).toMatch(/^OK\s+slack-channel\s+acme\/api\s+C0DEPLOYS1 \(#deploys\)/m)
    expect(result.stdout).toMatch(/^OK\s+webhook\s+acme\/api\s/m)
    expect(existsSync(file('config.lock'))).toBe(true)
    expectNoSecrets(result, written.GITHUB_WEBHOOK_SECRET!)
  })

  it('leaves notify.direct_messages at its default (opt_in) unless --direct-messages says otherwise, and its checks name the scopes the choice needs', async () => {
    const notify = () => (parse(readFileSync(file('config.yaml'), 'utf8')) as { notify: unknown }).notify
    const byDefault = await setup(githubFlags)
    expect(byDefault.status).toBe(0)
    expect(notify()).toBeUndefined()
    expect(readFileSync(file('config.yaml'), 'utf8')).toContain('# notify.direct_messages is opt_in, the default')
    expect(byDefault.stdout).toContain('note: people opt in with /prherald dm on or the home tab')
    // What the wizard wrote does not warn at every doctor run (nor at every start: the same check).
    const doctor = await runCliAsync('doctor', [], { ...env(), GITHUB_WEBHOOK_SECRET: 'unused-here-0123456789abcdef' }, dir.path)
    expect(doctor.stdout).toMatch(/^ {2}SKIP {2}direct messages +notify\.direct_messages +opt_in \(the default, not set in the file\)/m)
    expect(doctor.stdout).not.toMatch(/WARN +direct messages/)

    const on = await setup([...githubFlags, '--direct-messages', 'on', '--force'])
    expect(on.status).toBe(0)
    expect(notify()).toEqual({ direct_messages: 'on' })
    expect(on.stdout).toMatch(/^WARN\s+slack-scope\s+im:write\s+the token lacks im:write, which disables direct messages\n\s+fix: .*reinstall the app/m)

    const wrong = await setup([...githubFlags, '--direct-messages', 'yes', '--force'])
    expect(wrong.status).toBe(1)
    expect(wrong.stderr).toBe('prherald: "yes" is not a direct-messages setting\n  fix: use --direct-messages off, opt_in, on\n')
    expect(notify()).toEqual({ direct_messages: 'on' })
  })

  it('GitHub Enterprise Server: --git-api-url goes to .env, and the setup and later commands call that API', async () => {
    // GITHUB_API_URL blank in the environment: only the flag can lead the calls to the (fake) server.
    const result = await setup([...githubFlags, '--public-url', PUBLIC_URL, '--git-token', GIT_TOKEN, '--create-webhook', '--git-api-url', `${github.url}/`], { GITHUB_API_URL: '' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(readEnv().GITHUB_API_URL).toBe(github.url.replace(/\/+$/, ''))
    expect(github.hooks.get('acme/api')).toHaveLength(1)
    const validate = await runCliAsync('config', ['validate', 'acme/api'], { PATH: process.env.PATH ?? '', SLACK_API_URL: slack.url }, dir.path)
    expect(validate.stdout).toMatch(/^OK\s+webhook\s+acme\/api\s/m)

    const wrong = await setup([...githubFlags, '--git-api-url', 'github.example.com', '--force'])
    expect(wrong.status).toBe(1)
    expect(wrong.stderr).toBe('prherald: "github.example.com" is not a URL\n  fix: give the API base URL, e.g. https://HOST/api/v3\n')
  })

  it('--slack-app-token turns Socket Mode on: SLACK_APP_TOKEN in .env, slack.socket_mode in config.yaml; a bot token there is refused', async () => {
    const appToken = 'xapp-1-A0PRHERALD-1-setup'
    const result = await setup([...githubFlags, '--slack-app-token', appToken])
    expect(result.status).toBe(0)
    expect(readEnv().SLACK_APP_TOKEN).toBe(appToken)
    expect((parse(readFileSync(file('config.yaml'), 'utf8')) as { slack?: unknown }).slack).toEqual({ socket_mode: true })
    expectNoSecrets(result, appToken)

    const bot = await setup([...githubFlags, '--slack-app-token', 'xoxb-not-an-app-token', '--force'])
    expect(bot.status).toBe(1)
    expect(bot.stderr).toContain('SLACK_APP_TOKEN is a bot token (xoxb-…)')
  })

  it('checks the token at once: a token Slack refuses ends the run with the fix, before any file is written', async () => {
    slack.faults.push({ method: 'auth.test', fault: { error: 'invalid_auth' } })
    const result = await setup(githubFlags)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('the Slack token was not accepted: auth.test answered invalid_auth')
    expect(result.stderr).toContain('fix: SLACK_BOT_TOKEN is not valid')
    expect(existsSync(file('config.yaml'))).toBe(false)
    expect(existsSync(file('.env'))).toBe(false)
  })

  it('refuses a channel name the bot is not in, naming the channels it is in', async () => {
    const result = await setup(['--yes', '--provider', 'github', '--channel', 'outside', '--repository', 'acme/api'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('the bot is not in a channel named #outside (the bot is in #deploys, #random)')
    expect(result.stderr).toContain('/invite @your-bot')
    expect(existsSync(file('config.yaml'))).toBe(false)
  })

  it('names the flag a missing answer needs', async () => {
    const result = await setup(['--yes', '--provider', 'github', '--channel', 'C0DEPLOYS1'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('--yes needs --repository')
    expect(existsSync(file('.env'))).toBe(false)
  })

  it('names every missing flag at once, before asking Slack anything', async () => {
    const result = await setup(['--yes'], { SLACK_BOT_TOKEN: '' })
    expect(result.status).toBe(1)
    expect(result.stderr).toBe('prherald: --yes needs --provider, --slack-token (or SLACK_BOT_TOKEN), --channel and --repository\n'
      + '  fix: pass them, or run prherald-setup without --yes to be asked\n')
    expect(slack.calls).toHaveLength(0)
    expect(existsSync(file('.env'))).toBe(false)
  })

  it('without --yes and without a terminal, says how to run it unattended', async () => {
    const result = await setup([])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('no terminal to ask the questions on')
    expect(result.stderr).toContain('--yes')
  })

  it('a GitHub it cannot reach is one FAIL, in the checks, with its fix, not one more before them', async () => {
    const result = await setup([...githubFlags, '--public-url', PUBLIC_URL, '--git-token', GIT_TOKEN, '--create-webhook'], { GITHUB_API_URL: 'http://127.0.0.1:9/' })
    expect(result.status).not.toBe(0)
    expect(result.stdout).toContain('webhook not created for acme/api: the webhook check below says why')
    expect(result.stdout.match(/^FAIL .*GitHub unreachable at http:\/\/127\.0\.0\.1:9/gm)).toHaveLength(1)
    expect(result.stdout.match(/fix: check the network path to GitHub/g)).toHaveLength(1)
    expect(existsSync(file('config.yaml'))).toBe(true)
  })

  it('does not create the webhook unless asked, and says how to later', async () => {
    const result = await setup([...githubFlags, '--public-url', PUBLIC_URL, '--git-token', GIT_TOKEN])
    expect(github.hooks.get('acme/api')).toHaveLength(0)
    expect(result.stdout).toContain('prherald-config create-webhook acme/api')
    // The closing checks find the missing webhook.
    expect(result.stdout).toMatch(/^FAIL\s+webhook\s+acme\/api\s/m)
    expect(result.status).toBe(1)
  })
})

/** `prherald-setup --yes` for a GitLab project of a nested group, its hook created on the fake GitLab. */
async function setupGitlab(gitlab: Awaited<ReturnType<typeof startFakeGitlab>>, channel: string) {
  gitlab.token = 'glpat-setup-token-2b8d'
  gitlab.hooks.set('platform/backend/api', [])
  return setup(['--yes', '--provider', 'gitlab', '--channel', channel, '--repository', 'platform/backend/api',
    '--public-url', PUBLIC_URL, '--git-token', 'glpat-setup-token-2b8d', '--create-webhook', '--git-api-url', `${gitlab.url}/`])
}

describe('prherald-setup --yes (GitLab)', () => {
  it('writes the GITLAB_* variables to .env, creates the project hook of a nested group with the generated secret, and ends with passing checks', async () => {
    const gitlab = await startFakeGitlab()
    try {
      const result = await setupGitlab(gitlab, '#deploys')
      expect(result.stderr).toBe('')
      expect(result.status).toBe(0)
      const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { git_provider: string; mappings: Record<string, Record<string, unknown>> }
      expect(config.git_provider).toBe('gitlab')
      expect(config.mappings['platform/backend']!.api).toMatchObject({ channel: 'C0DEPLOYS1' })

      const written = readEnv()
      expect(written.GITLAB_TOKEN).toBe('glpat-setup-token-2b8d')
      // A self-managed GitLab: its API URL is in .env, so the server and every later command reach it.
      expect(written.GITLAB_API_URL).toBe(gitlab.url.replace(/\/+$/, ''))
      expect(written.GITLAB_WEBHOOK_SECRET).toMatch(/^[0-9a-f]{64}$/)
      expect(Object.keys(written).filter((k) => /^(GITHUB|BITBUCKET)_/.test(k))).toEqual([])

      const [hook] = gitlab.hooks.get('platform/backend/api')!
      expect(hook).toMatchObject({ url: `${PUBLIC_URL}/webhook/gitlab`, merge_requests_events: true, note_events: true, pipeline_events: true, push_events: false })
      expect(gitlab.hookTokens.get(hook!.id)).toBe(written.GITLAB_WEBHOOK_SECRET)
      expect(result.stdout).toMatch(/^OK\s+webhook\s+platform\/backend\/api\s/m)
      expectNoSecrets(result, 'glpat-setup-token-2b8d', written.GITLAB_WEBHOOK_SECRET!)
    } finally {
      await gitlab.close()
    }
  })
})

describe('prherald-setup on a configuration for another host (issue 34)', () => {
  it('adds the host beside the one there, keeping its mappings, comments and secrets, and checks the new host', async () => {
    const first = await setup(githubFlags)
    expect(first.status, first.stdout + first.stderr).toBe(0)
    const githubEnv = readEnv()
    writeFileSync(file('config.yaml'), `${readFileSync(file('config.yaml'), 'utf8')}# kept: a note of the team's\n`)
    const gitlab = await startFakeGitlab()
    try {
      const result = await setupGitlab(gitlab, '#random')
      expect(result.stderr).toBe('')
      expect(result.status).toBe(0)
      expect(result.stdout).toContain(`added GitLab to ${file('config.yaml')} (hosts.gitlab), beside github, which are kept`)

      const text = readFileSync(file('config.yaml'), 'utf8')
      expect(text).toContain("# kept: a note of the team's")
      const config = parse(text) as Record<string, any>
      expect(config.git_provider).toBeUndefined()
      expect(config.mappings).toBeUndefined()
      expect(config.hosts.github.mappings.acme.api).toEqual({ channel: 'C0DEPLOYS1', mentions: ['<@U0123ABCD>', '<!here>'] })
      expect(config.hosts.gitlab.mappings['platform/backend'].api).toMatchObject({ channel: 'C0RANDOM01' })

      const written = readEnv()
      expect(written.GITHUB_WEBHOOK_SECRET).toBe(githubEnv.GITHUB_WEBHOOK_SECRET)
      expect(written.SLACK_BOT_TOKEN).toBe(SLACK_TOKEN)
      expect(written.GITLAB_WEBHOOK_SECRET).toMatch(/^[0-9a-f]{64}$/)
      expect(gitlab.hookTokens.get(gitlab.hooks.get('platform/backend/api')![0]!.id)).toBe(written.GITLAB_WEBHOOK_SECRET)

      // The file is one every command reads: both hosts, a section each.
      const list = await runCliAsync('config', ['list'], { ...env(), GITLAB_API_URL: gitlab.url }, dir.path)
      expect(list.stdout).toContain('GitHub (hosts.github, route /webhook/github):')
      expect(list.stdout).toContain('GitLab (hosts.gitlab, route /webhook/gitlab):')
    } finally {
      await gitlab.close()
    }
  })
})

describe('prherald-setup adding a host with talk-back', () => {
  it('turns it on for the added repository only, adds the OAuth client, and keeps the token key already there', async () => {
    const first = await setup([...githubFlags, '--talk-back-replies', 'linked'])
    expect(first.status, first.stdout + first.stderr).toBe(0)
    const key = readEnv().PRHERALD_TOKEN_KEY
    expect(key).toBeDefined()
    const added = await setup(['--yes', '--provider', 'gitlab', '--channel', '#random', '--repository', 'platform/api',
      '--talk-back-reviews', 'on', '--oauth-client-id', 'gitlab-app-id-51', '--oauth-client-secret', 'gitlab-app-secret-51'])
    expect(added.stderr).toBe('')
    expect(added.status).toBe(0)
    const written = readEnv()
    expect(written).toMatchObject({ PRHERALD_TOKEN_KEY: key, GITLAB_OAUTH_CLIENT_ID: 'gitlab-app-id-51', GITLAB_OAUTH_CLIENT_SECRET: 'gitlab-app-secret-51' })
    expect(readFileSync(file('.env'), 'utf8').match(/^PRHERALD_TOKEN_KEY=/gm)).toHaveLength(1)
    // The GitHub client, never given, is still named to fill in, once.
    expect(readFileSync(file('.env'), 'utf8').match(/^# GITHUB_OAUTH_CLIENT_ID=/gm)).toHaveLength(1)
    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as Record<string, any>
    expect(config.slack).toEqual({ talk_back: { thread_replies: 'linked', reviews: 'off' } })
    expect(config.hosts.gitlab.mappings.platform.api.slack).toEqual({ talk_back: { thread_replies: 'off', reviews: 'on' } })
    expect(config.hosts.github.mappings.acme.api.slack).toBeUndefined()
    expectNoSecrets(added, 'gitlab-app-secret-51', key!)
  })
})

describe('prherald-setup --config', () => {
  it('writes the config where asked and names it in .env, so that every command in this directory finds it', async () => {
    const result = await setup([...githubFlags, '--config', 'my-config.yaml'])
    expect(result.status).toBe(0)
    expect(existsSync(file('config.yaml'))).toBe(false)
    expect(readFileSync(file('my-config.yaml'), 'utf8')).toContain('channel: C0DEPLOYS1')
    expect(readEnv().PRHERALD_CONFIG_FILE).toBe('my-config.yaml')
    expect(result.stdout).toMatch(/config\.lock written \(.*config\.lock\)/)
    const list = await runCliAsync('config', ['list'], { PATH: process.env.PATH ?? '' }, dir.path)
    expect(list.stdout).toMatch(/^acme\s+api\s+C0DEPLOYS1\s/m)
  })
})

describe('prherald-setup never overwrites without being told', () => {
  it('with --yes, refuses when .env exists and writes nothing', async () => {
    writeFileSync(file('.env'), 'KEEP=me\n', { mode: 0o644 })
    const result = await setup(githubFlags)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(`${file('.env')} exists; not overwritten`)
    expect(result.stderr).toContain('--force')
    expect(readFileSync(file('.env'), 'utf8')).toBe('KEEP=me\n')
    expect(existsSync(file('config.yaml'))).toBe(false)
  })

  it('with --yes --force, replaces both and makes the old .env owner-only', async () => {
    writeFileSync(file('.env'), 'KEEP=me\n', { mode: 0o644 })
    writeFileSync(file('config.yaml'), 'git_provider: bitbucket\nmappings: {}\n')
    const result = await setup([...githubFlags, '--force'])
    expect(result.status).toBe(0)
    expect(readEnv().KEEP).toBeUndefined()
    expect(statSync(file('.env')).mode & 0o777).toBe(0o600)
    expect(readFileSync(file('config.yaml'), 'utf8')).toContain('git_provider: github')
  })
})

describe('prherald-setup --force over a symlinked .env', () => {
  it('replaces the link with a new owner-only file and never writes the secrets through it', async () => {
    const target = file('elsewhere.txt')
    writeFileSync(target, 'NOT=secret\n', { mode: 0o644 })
    symlinkSync(target, file('.env'))
    const result = await setup([...githubFlags, '--force'])
    expect(result.status).toBe(0)
    expect(readFileSync(target, 'utf8')).toBe('NOT=secret\n')
    expect(statSync(target).mode & 0o777).toBe(0o644)
    expect(lstatSync(file('.env')).isSymbolicLink()).toBe(false)
    expect(statSync(file('.env')).mode & 0o777).toBe(0o600)
    expect(readEnv().SLACK_BOT_TOKEN).toBe(SLACK_TOKEN)
    expect(readdirSync(dir.path).filter((n) => n.endsWith('.tmp'))).toEqual([])
  })
})

describe('prherald-setup --public-url', () => {
  it('refuses http:// except on loopback, writing nothing', async () => {
    const plain = await setup([...githubFlags, '--public-url', 'http://prherald.example.com'])
    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain('"http://prherald.example.com" is http://: deliveries would cross the network unencrypted')
    expect(existsSync(file('config.yaml')) || existsSync(file('.env'))).toBe(false)
    const loopback = await setup([...githubFlags, '--public-url', 'http://127.0.0.1:8080'])
    expect(loopback.stderr).not.toContain('is http://')
    expect(readEnv().PRHERALD_PUBLIC_URL).toBe('http://127.0.0.1:8080')
  })
})

describe('prherald-setup --yes (Bitbucket)', () => {
  it('prints the manual webhook steps with the URL filled in, and where the secret is rather than the secret', async () => {
    const result = await setup(['--yes', '--provider', 'bitbucket', '--channel', 'C0RANDOM01', '--repository', 'acme/web', '--public-url', `${PUBLIC_URL}/`])
    expect(result.status).toBe(0)
    const secret = readEnv().BITBUCKET_WEBHOOK_SECRET!
    expect(secret).toMatch(/^[0-9a-f]{64}$/)
    expect(result.stdout).toContain(`URL: ${PUBLIC_URL}/webhook/bitbucket`)
    expect(result.stdout).toContain('https://bitbucket.org/acme/web/admin/webhooks')
    // Output captured by a pipe (CI logs) names the file; a terminal shows the secret itself.
    expect(result.stdout).toContain(`Secret for step 5: the value of BITBUCKET_WEBHOOK_SECRET in ${file('.env')}`)
    expect(result.stdout).toMatch(/^SKIP\s+webhook\s+acme\/web\s+BITBUCKET_TOKEN is not set/m)
    expectNoSecrets(result, secret)
  })
})
