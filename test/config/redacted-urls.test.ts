import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { loadSettings } from '../../src/config/load-config.ts'
import { redactUrl, redactUrlsIn } from '../../src/log/redact-url.ts'
import { gitHostFailure } from '../../src/checks/webhook-check.ts'
import { reportError } from '../../src/log/report-error.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync, type CliResult } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** Issue 11.13: a URL's user-info (a database password, say) never reaches a message, in any command. */
const PASSWORD = 'S3cret-Pw-9f2c'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack | undefined
let github: FakeGithub | undefined
beforeEach(() => {
  dir = makeTempDir()
  writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000002' } } } })
})
afterEach(async () => {
  await slack?.close()
  await github?.close()
  slack = github = undefined
  dir.remove()
})

const run = (cli: 'server' | 'config' | 'doctor', args: string[], env: Env) => runCliAsync(cli, args, env, dir.path)
function expectRedacted(result: CliResult): string {
  const output = result.stdout + result.stderr
  expect(output).not.toContain(PASSWORD)
  return output
}

describe('redactUrl', () => {
  it('hides an unencoded password holding / (postgres://app:5432/secretpw@db/prod), and the config refuses it with the fix', () => {
    const url = 'postgres://app:5432/secretpw@db/prod'
    expect(redactUrl(url)).toBe('postgres://***@db/prod')
    let message = ''
    try {
      loadSettings({ ...testEnv(dir.path, 'github'), PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'), PRHERALD_DATABASE_URL: url }, dir.path)
    } catch (error) {
      message = error instanceof Error ? `${error.message} ${(error as { fix?: string }).fix ?? ''}` : String(error)
    }
    expect(message).toMatch(/percent-encode the password/)
    expect(message).not.toContain('secretpw')
    expect(message).not.toContain('5432/secretpw')
  })

  it.each([
    ['postgres://prherald:S3cret@db.example.com:5432/prherald', 'postgres://***@db.example.com:5432/prherald'],
    ['https://user@prherald.example.com/', 'https://***@prherald.example.com/'],
    ['http://user:p@ss@host/a@b', 'http://***@host/a@b'], // an unencoded @ in the password
    ['postgres://u:pa/ss@db/x', 'postgres://***@db/x'], // not a valid URL: everything up to the last @
    ['postgres://db/prherald?sslmode=require&password=S3cret', 'postgres://db/prherald?sslmode=require&password=***'],
    ['https://api.github.com', 'https://api.github.com'],
    ['https://host/path/@handle', 'https://host/path/@handle'], // an @ in the path is not user-info
    ['file:./data/prherald.db', 'file:./data/prherald.db'],
    ['not a url', 'not a url'],
  ])('%s is shown as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown)
  })

  it('redactUrlsIn hides the user-info of URLs quoted in free text', () => {
    expect(redactUrlsIn('Request cannot be constructed from a URL that includes credentials: http://bot:S3cret@127.0.0.1:1/api/auth.test'))
      .toBe('Request cannot be constructed from a URL that includes credentials: http://***@127.0.0.1:1/api/auth.test')
  })
})

describe('unexpected errors that quote a URL', () => {
  const quoting = () => new TypeError(`Request cannot be constructed from a URL that includes credentials: https://bot:${PASSWORD}@ghe.example.com/api/v3/hooks`)

  it('a start-up or CLI failure prints it redacted', () => {
    let written = ''
    reportError(quoting(), (text) => { written += text })
    expect(written).toContain('https://***@ghe.example.com/api/v3/hooks')
    expect(written).not.toContain(PASSWORD)
  })

  it('a check line for a failed git-host call prints it redacted', () => {
    const result = gitHostFailure('webhook', 'acme/api', quoting())
    expect(result.reason).toContain('https://***@ghe.example.com/api/v3/hooks')
    expect(result.reason).not.toContain(PASSWORD)
  })
})

describe('the loader', () => {
  const file = () => join(dir.path, 'config.yaml')
  const failure = (env: Env) => {
    try {
      loadSettings({ PRHERALD_CONFIG_FILE: file(), ...env }, dir.path)
    } catch (error) {
      return (error as Error).message
    }
    throw new Error('expected a refusal')
  }

  it('PRHERALD_DATABASE_URL of another kind is named without its password', () => {
    const message = failure({ PRHERALD_DATABASE_URL: `mysql://prherald:${PASSWORD}@db.example.com/prherald` })
    expect(message).toContain('PRHERALD_DATABASE_URL=mysql://***@db.example.com/prherald is invalid')
    expect(message).not.toContain(PASSWORD)
  })

  it('database.url in the file likewise', () => {
    writeFileSync(file(), `git_provider: github\ndatabase:\n  url: mysql://prherald:${PASSWORD}@db/prherald\nmappings: {}\n`)
    const message = failure({})
    expect(message).toContain('database.url: "mysql://***@db/prherald" is not supported')
    expect(message).not.toContain(PASSWORD)
  })

  it('a PostgreSQL password in database.url is refused, named without the password', () => {
    writeFileSync(file(), `git_provider: github\ndatabase:\n  url: postgres://prherald:${PASSWORD}@db/prherald\nmappings: {}\n`)
    const message = failure({})
    expect(message).toContain('database.url: "postgres://***@db/prherald" holds a password')
    expect(message).not.toContain(PASSWORD)
  })
})

describe('commands', () => {
  it('prherald-server refuses an invalid database URL at start-up without printing its password', async () => {
    const result = await run('server', [], testEnv(dir.path, 'github', { PRHERALD_DATABASE_URL: `mysql://prherald:${PASSWORD}@db.example.com/prherald` }))
    expect(result.status).toBe(1)
    expect(expectRedacted(result)).toContain('PRHERALD_DATABASE_URL=mysql://***@db.example.com/prherald is invalid')
  })

  it('prherald-doctor shows PRHERALD_PUBLIC_URL and an unreachable SLACK_API_URL redacted', async () => {
    slack = await startFakeSlack({ anyChannel: true })
    const slackWithUserInfo = slack.url.replace('http://', `http://bot:${PASSWORD}@`)
    const result = await run('doctor', ['acme/api'], testEnv(dir.path, 'github', {
      PRHERALD_PUBLIC_URL: `https://hook:${PASSWORD}@prherald.example.com`,
      SLACK_API_URL: slackWithUserInfo,
    }))
    const output = expectRedacted(result)
    expect(output).toMatch(/OK\s+public url\s+PRHERALD_PUBLIC_URL\s+https:\/\/\*\*\*@prherald\.example\.com/)
    expect(output).toContain(`Slack unreachable at ${slack.url.replace('http://', 'http://***@')}`)
  })

  it('create-webhook and the webhook check show PRHERALD_PUBLIC_URL redacted, while GitHub gets the whole URL', async () => {
    github = await startFakeGithub()
    github.token = 'ghp-redact-token'
    github.repos.set('acme', ['api'])
    github.hooks.set('acme/api', [])
    slack = await startFakeSlack({ anyChannel: true })
    const publicUrl = `https://hook:${PASSWORD}@prherald.example.com`
    const env = testEnv(dir.path, 'github', { GITHUB_API_URL: github.url, SLACK_API_URL: slack.url, GITHUB_TOKEN: 'ghp-redact-token', PRHERALD_PUBLIC_URL: publicUrl })
    const created = await run('config', ['create-webhook', 'acme/api'], env)
    expect(created.status).toBe(0)
    expect(expectRedacted(created)).toContain('url:          https://***@prherald.example.com/webhook/github')
    expect(github.hooks.get('acme/api')![0]!.config.url).toBe(`${publicUrl}/webhook/github`)
    const validated = await run('config', ['validate'], env)
    expect(expectRedacted(validated)).toContain('webhook https://***@prherald.example.com/webhook/github is active')
  })

  it('the Bitbucket steps show the URL to paste redacted, and say what *** stands for', async () => {
    writeConfig(dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0000000002' } } } })
    const steps = await run('config', ['create-webhook', 'ws/repo'], testEnv(dir.path, 'bitbucket', { PRHERALD_PUBLIC_URL: `https://hook:${PASSWORD}@prherald.example.com` }))
    expect(steps.status).toBe(0)
    const output = expectRedacted(steps)
    expect(output).toContain('URL: https://***@prherald.example.com/webhook/bitbucket')
    expect(output).toContain('*** stands for the user and password in PRHERALD_PUBLIC_URL')
  })
})
