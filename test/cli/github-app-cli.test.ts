import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { createTestGithubApp, installationOfRequest, type TestGithubApp } from '../helpers/fake-github-app.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

const PUBLIC_URL = 'https://prherald.example.com'
let dir: ReturnType<typeof makeTempDir>
let app: TestGithubApp
let github: FakeGithub | undefined
let slack: FakeSlack | undefined

beforeEach(() => {
  dir = makeTempDir()
  app = createTestGithubApp(dir.path)
  writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000001' } }, ghost: { site: { channel: 'C0000000002' } } } })
})
afterEach(async () => {
  await github?.close()
  await slack?.close()
  github = slack = undefined
  dir.remove()
})

const appEnv = (extra: Record<string, string> = {}) =>
  testEnv(dir.path, 'github', { GITHUB_APP_ID: String(app.id), GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile, ...extra })
const lineOf = (out: string, ...words: string[]) => out.split('\n').find((l) => words.every((w) => l.includes(w)))

describe('the commands with a GitHub App', () => {
  it('create-webhook creates the hook with the owner\'s installation token, and the doctor checks it and each installation', async () => {
    github = await startFakeGithub()
    slack = await startFakeSlack()
    app.state.installations.set('acme', { id: 101, type: 'Organization' })
    github.app = app.state
    github.hooks.set('acme/api', [])
    const env = appEnv({ GITHUB_API_URL: github.url, SLACK_API_URL: slack.url, PRHERALD_PUBLIC_URL: PUBLIC_URL })

    const created = await runCliAsync('config', ['create-webhook', 'acme/api'], env, dir.path)
    expect(created.stderr).toBe('')
    expect(created.stdout).toContain('created webhook 1 on acme/api')
    const post = github.requests.find((r) => r.method === 'POST' && r.path === '/repos/acme/api/hooks')!
    expect(installationOfRequest(app.state, post)).toBe(101)

    const doctor = await runCliAsync('doctor', ['acme/api'], env, dir.path)
    expect(lineOf(doctor.stdout, 'auth', 'OK')).toContain('GitHub App 12345 (installation per owner)')
    expect(lineOf(doctor.stdout, 'access', 'acme')).toMatch(/OK .*GitHub App 12345: installation 101/)
    expect(lineOf(doctor.stdout, 'access', 'ghost')).toMatch(/FAIL .*GitHub App 12345 is not installed on ghost/)
    expect(lineOf(doctor.stdout, 'webhook', 'acme/api')).toMatch(/OK .*webhook https:\/\/prherald\.example\.com\/webhook\/github is active/)
    expect(doctor.stdout + doctor.stderr).not.toContain(app.privateKey.split('\n')[1])
    expect(doctor.status).toBe(1)
  })

  it('prherald-setup writes the app to .env (the key file\'s path, not the key) and creates the webhook with it', async () => {
    github = await startFakeGithub()
    slack = await startFakeSlack()
    slack.channels.set('C0DEPLOYS1', { name: 'deploys' })
    app.state.installations.set('acme', { id: 101, type: 'Organization' })
    github.app = app.state
    github.hooks.set('acme/api', [])
    const setup = await runCliAsync('setup', [
      '--yes', '--provider', 'github', '--channel', '#deploys', '--repository', 'acme/api', '--public-url', PUBLIC_URL,
      '--github-app-id', String(app.id), '--github-app-private-key-file', app.keyFile, '--create-webhook', '--force',
    ], { SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, SLACK_BOT_TOKEN: 'xoxb-setup-token-93c1' }, dir.path)
    expect(setup.stderr).toBe('')
    const written = parseEnv(readFileSync(join(dir.path, '.env'), 'utf8'))
    expect(written).toMatchObject({ GITHUB_APP_ID: '12345', GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })
    expect(written.GITHUB_TOKEN).toBeUndefined()
    expect(readFileSync(join(dir.path, '.env'), 'utf8')).not.toContain(app.privateKey.split('\n')[1])
    const post = github.requests.find((r) => r.method === 'POST' && r.path === '/repos/acme/api/hooks')!
    expect(installationOfRequest(app.state, post)).toBe(101)
    expect(setup.stdout).toMatch(/^OK\s+webhook\s+acme\/api\s/m)
    expect(setup.status).toBe(0)
  })

  it('refuses to start with a key file that is missing, unreadable or not a PEM, in one line naming the variable', async () => {
    const notPem = join(dir.path, 'not-a-key.pem')
    writeFileSync(notPem, '-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END RSA PRIVATE KEY-----\n')
    const folder = join(dir.path, 'a-folder.pem')
    mkdirSync(folder)
    const cases = [
      [join(dir.path, 'missing.pem'), /GITHUB_APP_PRIVATE_KEY_FILE: cannot read .*missing\.pem \(ENOENT\)/],
      [folder, /GITHUB_APP_PRIVATE_KEY_FILE: cannot read .*a-folder\.pem \(EISDIR\)/],
      [notPem, /GITHUB_APP_PRIVATE_KEY_FILE: .*not-a-key\.pem is not a PEM private key/],
    ] as const
    for (const [file, message] of cases) {
      const result = await runCliAsync('server', [], appEnv({ GITHUB_APP_PRIVATE_KEY_FILE: file }), dir.path)
      expect(result.status).not.toBe(0)
      const output = (result.stdout + result.stderr).trim()
      expect(output).toMatch(message)
      expect(output).not.toContain('c2VjcmV0LWJ1dC1ub3QtYS1rZXk=')
      expect(output).not.toMatch(/\n\s+at /)
    }
  })
})
