import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { parse } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { runSetup, type SetupOptions } from '../../src/setup/run-setup.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { fakeTerminal, KEY, type FakeTerminal } from '../helpers/fake-terminal.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * prherald-setup answered at a terminal: the wizard's own code (runSetup, the clack prompts) with its
 * terminal as streams that the test types into, against the fake Slack. What the terminal shows is the
 * output stream; the exit status is what the CLI exits with; the files are the ones on disk.
 */
const SLACK_TOKEN = 'xoxb-typed-token-7d2f'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let term: FakeTerminal
let errors: string

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  slack.channels.set('C0DEPLOYS1', { name: 'deploys' })
  slack.channels.set('C0RANDOM01', { name: 'random' })
  slack.channels.set('C0GENERAL1', { name: 'general', is_member: false })
  term = fakeTerminal()
  errors = ''
})
afterEach(async () => {
  await slack.close()
  dir.remove()
})

function setup(env: Env = {}, options: Partial<SetupOptions> = {}): Promise<number> {
  return runSetup({ yes: false, force: false, ...options }, {
    cwd: dir.path,
    env: { SLACK_API_URL: slack.url, ...env },
    terminal: { input: term.input, output: term.output },
    outputIsTerminal: true,
    print: (line) => term.output.write(`${line}\n`),
    printError: (text) => { errors += text },
  })
}
const file = (name: string) => join(dir.path, name)
const nothingWritten = () => expect([existsSync(file('config.yaml')), existsSync(file('.env'))]).toEqual([false, false])

// The questions as they are asked, in order.
const Q = {
  provider: 'Which git host sends the webhooks?',
  token: 'Slack bot token',
  channel: 'Which channel hears about the pull requests?',
  channelId: 'Channel ID',
  repository: 'Repository (owner/repo)',
  mentions: 'Who is pinged',
  directMessages: 'Direct messages to people',
  appToken: 'Slack app-level token for Socket Mode',
  publicUrl: 'Public URL',
  selfManaged: 'Is it GitHub Enterprise Server',
  apiUrl: 'GitHub Enterprise Server API URL',
  gitToken: 'GITHUB_TOKEN',
  talkBack: 'Let people answer from Slack',
  createWebhook: 'Create the webhook on acme/api',
}

describe('prherald-setup at a terminal', () => {
  it('masks the Slack token as it is typed, shows no "undefined" for empty answers, and writes what was answered', async () => {
    const run = setup()
    await term.answer(Q.provider, KEY.enter)
    await term.answer(Q.token, `${SLACK_TOKEN}${KEY.enter}`)
    await term.answer(Q.channel, KEY.enter)
    await term.answer(Q.repository, `acme/api${KEY.enter}`)
    await term.answer(Q.mentions, KEY.enter)
    await term.answer(Q.directMessages, KEY.enter)
    await term.answer(Q.appToken, KEY.enter)
    await term.answer(Q.publicUrl, KEY.enter)
    await term.answer(Q.selfManaged, KEY.enter)
    await term.answer(Q.gitToken, KEY.enter)
    await term.answer(Q.talkBack, KEY.enter)
    expect(await run).toBe(0)

    // The typed secrets never reach the terminal, not even in a frame later redrawn: one mask per character.
    expect(term.written()).not.toContain(SLACK_TOKEN)
    expect(term.screen()).toMatch(new RegExp(`[▪•]{${SLACK_TOKEN.length}}`))
    expect(term.screen()).not.toContain('undefined')
    expect(errors).toBe('')

    expect(parseEnv(readFileSync(file('.env'), 'utf8')).SLACK_BOT_TOKEN).toBe(SLACK_TOKEN)
    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { notify: unknown; mappings: Record<string, Record<string, unknown>> }
    expect(config.mappings.acme!.api).toEqual({ channel: 'C0DEPLOYS1', mentions: [] })
    // The default answer, and what opting in takes, said right after it.
    expect(config.notify).toBeUndefined()
    expect(term.screen()).toContain('note: people opt in with /prherald dm on or the home tab, which need SLACK_SIGNING_SECRET')
  })

  it('asks a wrongly answered question again with the reason, instead of ending the wizard', async () => {
    slack.faults.push({ method: 'auth.test', fault: { error: 'invalid_auth' } })
    const run = setup()
    await term.answer(Q.provider, KEY.enter)
    await term.answer(Q.token, `xoxb-mistyped${KEY.enter}`)
    await term.waitFor('✖ the Slack token was not accepted: auth.test answered invalid_auth')
    await term.answer(Q.token, `${SLACK_TOKEN}${KEY.enter}`)
    // "another channel" is the third choice, after #deploys and #random.
    await term.answer(Q.channel, `${KEY.down}${KEY.down}${KEY.enter}`)
    await term.answer(Q.channelId, `#general${KEY.enter}`)
    await term.waitFor('✖ the bot is not in a channel named #general (the bot is in #deploys, #random)')
    await term.waitFor('/invite @your-bot')
    await term.answer(Q.channel, `${KEY.down}${KEY.enter}`)
    await term.answer(Q.repository, `acme api${KEY.enter}`)
    await term.waitFor('✖ "acme api" is not a repository')
    await term.waitFor('try again (2 tries left)')
    await term.answer(Q.repository, `acme/api${KEY.enter}`)
    await term.answer(Q.mentions, `@alice, here${KEY.enter}`)
    await term.waitFor('✖ "@alice" is not a Slack mention')
    await term.answer(Q.mentions, `U0123ABCD, here${KEY.enter}`)
    // opt_in, on, off: the third is off.
    await term.answer(Q.directMessages, `${KEY.down}${KEY.down}${KEY.enter}`)
    await term.answer(Q.appToken, KEY.enter)
    await term.answer(Q.publicUrl, `prherald.example.com${KEY.enter}`)
    await term.waitFor('✖ "prherald.example.com" is not a URL')
    await term.answer(Q.publicUrl, KEY.enter)
    // GitHub Enterprise Server: yes, then its API URL, asked again while empty.
    await term.answer(Q.selfManaged, `y${KEY.enter}`)
    await term.answer(Q.apiUrl, KEY.enter)
    await term.waitFor('✖ no API URL given')
    await term.answer(Q.apiUrl, `https://github.example.com/api/v3/${KEY.enter}`)
    await term.answer(Q.gitToken, KEY.enter)
    await term.answer(Q.talkBack, KEY.enter)
    expect(await run).toBe(0)
    expect(errors).toBe('')
    expect(parseEnv(readFileSync(file('.env'), 'utf8')).GITHUB_API_URL).toBe('https://github.example.com/api/v3')

    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { notify: unknown; mappings: Record<string, Record<string, unknown>> }
    expect(config.mappings.acme!.api).toEqual({ channel: 'C0RANDOM01', mentions: ['<@U0123ABCD>', '<!here>'] })
    expect(config.notify).toEqual({ direct_messages: 'off' })
    expect(slack.count('auth.test')).toBeGreaterThanOrEqual(2)
  })

  it('asks a self-managed GitLab for its API URL and writes GITLAB_API_URL', async () => {
    const run = setup({ SLACK_BOT_TOKEN: SLACK_TOKEN },
      { provider: 'gitlab', channel: 'C0DEPLOYS1', repository: 'acme/api', mentions: '', directMessages: 'off', slackAppToken: '', publicUrl: '', gitToken: '' })
    await term.answer('Is it self-managed GitLab', `y${KEY.enter}`)
    await term.answer('self-managed GitLab API URL', `https://gitlab.example.com/api/v4${KEY.enter}`)
    await term.answer(Q.talkBack, KEY.enter)
    expect(await run).toBe(0)
    expect(errors).toBe('')
    expect(parseEnv(readFileSync(file('.env'), 'utf8')).GITLAB_API_URL).toBe('https://gitlab.example.com/api/v4')
  })

  it('turns talk-back on when asked to: the modes, the OAuth client (its secret masked) and a generated token key', async () => {
    const run = setup({ SLACK_BOT_TOKEN: SLACK_TOKEN, PRHERALD_PUBLIC_URL: 'https://prherald.example.com' },
      { provider: 'github', channel: 'C0DEPLOYS1', repository: 'acme/api', mentions: '', directMessages: 'off', slackAppToken: '', gitApiUrl: '', gitToken: '' })
    await term.answer(Q.talkBack, `y${KEY.enter}`)
    await term.answer('Thread replies to the message become comments', KEY.enter)
    await term.answer('Approve, request changes and comment from the message?', KEY.enter)
    await term.answer('GITHUB_OAUTH_CLIENT_ID', `Iv1.typed0client${KEY.enter}`)
    await term.answer('GITHUB_OAUTH_CLIENT_SECRET', `typed-oauth-secret-41c7${KEY.enter}`)
    expect(await run).toBe(0)
    expect(errors).toBe('')
    expect(term.written()).not.toContain('typed-oauth-secret-41c7')
    const config = parse(readFileSync(file('config.yaml'), 'utf8')) as { slack: unknown }
    expect(config.slack).toEqual({ talk_back: { thread_replies: 'linked', reviews: 'on' } })
    const env = parseEnv(readFileSync(file('.env'), 'utf8'))
    expect(env).toMatchObject({ GITHUB_OAUTH_CLIENT_ID: 'Iv1.typed0client', GITHUB_OAUTH_CLIENT_SECRET: 'typed-oauth-secret-41c7' })
    expect(Buffer.from(env.PRHERALD_TOKEN_KEY!, 'base64')).toHaveLength(32)
    expect(term.written()).not.toContain(env.PRHERALD_TOKEN_KEY)
    expect(term.screen()).toContain('note: the Slack app needs the bot events message.channels and message.groups')
  })

  it('stops after three wrong answers to one question with the reason, exit 1, and writes nothing', async () => {
    const run = setup({}, { provider: 'github', channel: 'C0DEPLOYS1' })
    await term.answer(Q.token, `${SLACK_TOKEN}${KEY.enter}`)
    for (const wrong of ['acme', 'acme api', 'acme//api']) await term.answer(Q.repository, `${wrong}${KEY.enter}`)
    expect(await run).toBe(1)
    expect(term.screen().match(/try again/g)).toHaveLength(2)
    expect(errors).toBe('prherald: "acme//api" is not a repository\n'
      + '  fix: write it as <owner>/<repo>, e.g. acme/api (GitHub: owner/repo; Bitbucket: workspace/repository-slug; GitLab: group/project (nested: group/subgroup/project))\n')
    nothingWritten()
  })

  it('a wrong flag is asked for again on a terminal', async () => {
    const run = setup({ SLACK_BOT_TOKEN: SLACK_TOKEN }, { provider: 'sourcehut', channel: '#general', repository: 'acme/api', mentions: '', directMessages: 'always', slackAppToken: '', publicUrl: '', gitApiUrl: '', gitToken: '' })
    await term.waitFor('✖ "sourcehut" is not a git provider')
    await term.answer(Q.provider, KEY.enter)
    await term.waitFor('✖ the bot is not in a channel named #general')
    await term.answer(Q.channel, KEY.enter)
    await term.waitFor('✖ "always" is not a direct-messages setting')
    await term.answer(Q.directMessages, `${KEY.down}${KEY.enter}`)
    await term.answer(Q.talkBack, KEY.enter)
    expect(await run).toBe(0)
    expect(readFileSync(file('config.yaml'), 'utf8')).toContain('channel: C0DEPLOYS1')
    expect(readFileSync(file('config.yaml'), 'utf8')).toContain('direct_messages: on')
  })

  it('Ctrl+C says the setup is cancelled, exits 130 and writes nothing, even at the last question', async () => {
    const run = setup({ PRHERALD_PUBLIC_URL: 'https://prherald.example.com', GITHUB_TOKEN: 'ghp-from-env' },
      { provider: 'github', channel: 'C0DEPLOYS1', repository: 'acme/api', mentions: '', directMessages: 'on', slackAppToken: '', gitApiUrl: '' })
    await term.answer(Q.token, `${SLACK_TOKEN}${KEY.enter}`)
    await term.answer(Q.talkBack, KEY.enter)
    await term.answer(Q.createWebhook, KEY.ctrlC)
    expect(await run).toBe(130)
    expect(errors).toBe('prherald: setup cancelled, nothing written\n')
    nothingWritten()
  })
})
