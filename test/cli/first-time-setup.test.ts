import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { GITHUB_OPTIONAL_EVENTS, GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { BITBUCKET_REQUIRED_EVENTS } from '../../src/hosts/bitbucket/events.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync, type CliResult } from '../helpers/run-cli-async.ts'
import { TEST_SECRET, TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

const TOKEN = 'ghp-first-time-token-51d0'
const PUBLIC_URL = 'https://prherald.example.com'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub | undefined
let bitbucket: FakeBitbucket | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
})
afterEach(async () => {
  await slack.close()
  await github?.close()
  await bitbucket?.close()
  github = bitbucket = undefined
  dir.remove()
})

const run = (cli: 'config' | 'doctor', args: string[], env: Env) => runCliAsync(cli, args, env, dir.path)
const line = (result: CliResult, status: string, check: string, target: string) =>
  result.stdout.split('\n').find((l) => new RegExp(`^\\s*${status}\\s+${check}\\s+${target.replace('*', '\\*')}\\s`).test(l))

function expectNoSecrets(...results: CliResult[]) {
  for (const r of results) {
    for (const secret of [TOKEN, TEST_SECRET, TEST_SLACK_TOKEN, 'bb-first-time-token']) expect(r.stdout + r.stderr).not.toContain(secret)
  }
}

describe('first-time setup on GitHub', () => {
  it('webhook check: SKIP without GITHUB_TOKEN, FAIL with it before the hook exists, OK once create-webhook made it', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    github.hooks.set('acme/api', [])
    writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000001' } } } })
    const base = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, PRHERALD_PUBLIC_URL: PUBLIC_URL })
    const withToken = { ...base, GITHUB_TOKEN: TOKEN }

    const noToken = await run('config', ['validate'], base)
    expect(noToken.status).toBe(0)
    expect(line(noToken, 'SKIP', 'webhook', 'acme/api')).toContain('GITHUB_TOKEN is not set')
    const doctorNoToken = await run('doctor', ['acme/api'], base)
    expect(doctorNoToken.status).toBe(0)
    expect(line(doctorNoToken, 'SKIP', 'webhook', 'acme/api')).toBeDefined()
    expect(github.requests).toHaveLength(0)

    const noHook = await run('config', ['validate'], withToken)
    expect(noHook.status).toBe(1)
    expect(line(noHook, 'FAIL', 'webhook', 'acme/api')).toContain('no webhook whose URL ends in /webhook/github')
    expect(noHook.stdout).toContain('fix: run prherald-config create-webhook acme/api')
    expect(noHook.stdout).toMatch(/config\.lock not updated/)
    const doctorNoHook = await run('doctor', ['acme/api'], withToken)
    expect(doctorNoHook.status).toBe(1)
    expect(line(doctorNoHook, 'FAIL', 'webhook', 'acme/api')).toBeDefined()

    const created = await run('config', ['create-webhook', 'acme/api'], withToken)
    expect(created.status).toBe(0)
    expect(created.stdout).toContain('created webhook 1 on acme/api')
    expect(github.hooks.get('acme/api')).toEqual([{
      id: 1, name: 'web', active: true, events: [...GITHUB_REQUIRED_EVENTS, ...GITHUB_OPTIONAL_EVENTS],
      config: { url: `${PUBLIC_URL}/webhook/github`, content_type: 'json', secret: TEST_SECRET, insecure_ssl: '0' },
    }])

    const ok = await run('config', ['validate'], withToken)
    expect(ok.status).toBe(0)
    expect(line(ok, 'OK', 'webhook', 'acme/api')).toContain(`webhook ${PUBLIC_URL}/webhook/github is active with all 6 events`)
    const doctorOk = await run('doctor', ['acme/api'], withToken)
    expect(doctorOk.status).toBe(0)
    expect(line(doctorOk, 'OK', 'webhook', 'acme/api')).toBeDefined()

    // Running the helper again (a rotated secret, say) updates the same hook instead of adding a second one.
    const again = await run('config', ['create-webhook', 'acme/api'], { ...withToken, GITHUB_WEBHOOK_SECRET: 'rotated-secret-value' })
    expect(again.stdout).toContain('updated webhook 1 on acme/api')
    expect(github.hooks.get('acme/api')).toHaveLength(1)
    expect(github.hooks.get('acme/api')![0]!.config.secret).toBe('rotated-secret-value')
    expectNoSecrets(noToken, doctorNoToken, noHook, doctorNoHook, created, ok, doctorOk, again)
  }, 90_000) // eight CLI runs in a row: 16 s on a quiet machine, over 30 s on a loaded one

  it('create-webhook names the missing variable and exits 1, calling nothing', async () => {
    github = await startFakeGithub()
    writeConfig(dir.path, { git_provider: 'github', mappings: {} })
    const base = testEnv(dir.path, 'github', { GITHUB_API_URL: github.url })
    const noUrl = await run('config', ['create-webhook', 'acme/api'], { ...base, GITHUB_TOKEN: TOKEN })
    expect(noUrl.status).toBe(1)
    expect(noUrl.stderr).toContain('PRHERALD_PUBLIC_URL is not set')
    const noToken = await run('config', ['create-webhook', 'acme/api'], { ...base, PRHERALD_PUBLIC_URL: PUBLIC_URL })
    expect(noToken.status).toBe(1)
    expect(noToken.stderr).toContain('GITHUB_TOKEN is not set')
    const badRepo = await run('config', ['create-webhook', 'acme'], { ...base, PRHERALD_PUBLIC_URL: PUBLIC_URL, GITHUB_TOKEN: TOKEN })
    expect(badRepo.status).toBe(1)
    expect(badRepo.stderr).toContain('"acme" is not a repository')
    expect(github.requests).toHaveLength(0)
  })
})

describe('first-time setup on Bitbucket', () => {
  it('create-webhook prints the manual steps; the webhook check goes SKIP, FAIL, OK, over Basic auth when BITBUCKET_AUTH_EMAIL is set', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { basic: { email: 'ops@example.com', token: 'bb-first-time-token' } }
    bitbucket.hooks.set('ws/repo', [])
    writeConfig(dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0000000001' } } } })
    const base = testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url, BITBUCKET_API_URL: bitbucket.url, PRHERALD_PUBLIC_URL: PUBLIC_URL })
    const withToken = { ...base, BITBUCKET_TOKEN: 'bb-first-time-token', BITBUCKET_AUTH_EMAIL: 'ops@example.com' }

    const steps = await run('config', ['create-webhook', 'ws/repo'], base)
    expect(steps.status).toBe(0)
    expect(steps.stdout).toContain(`URL: ${PUBLIC_URL}/webhook/bitbucket`)
    expect(steps.stdout).toContain('Choose from a full list of triggers')
    expect(steps.stdout).toContain('BITBUCKET_WEBHOOK_SECRET is set')
    expect(steps.stdout).toMatch(/Active checked/)
    expect(steps.stdout).toMatch(/without a secret .* 401/s)
    expect(steps.stdout).toMatch(/test ping .* can be ignored/)
    for (const event of BITBUCKET_REQUIRED_EVENTS) expect(steps.stdout).toContain(`(${event})`)
    const noSecret = await run('config', ['create-webhook', 'ws/repo'], { ...base, BITBUCKET_WEBHOOK_SECRET: '' })
    expect(noSecret.stdout).toContain('openssl rand -base64 32')

    const skip = await run('config', ['validate'], base)
    expect(line(skip, 'SKIP', 'webhook', 'ws/repo')).toContain('BITBUCKET_TOKEN is not set')
    const fail = await run('config', ['validate'], withToken)
    expect(fail.status).toBe(1)
    expect(line(fail, 'FAIL', 'webhook', 'ws/repo')).toContain('no webhook whose URL ends in /webhook/bitbucket')

    // The operator follows the steps in Bitbucket's UI.
    bitbucket.hooks.set('ws/repo', [{ uuid: '{h1}', url: `${PUBLIC_URL}/webhook/bitbucket`, description: 'prherald', active: true, events: [...BITBUCKET_REQUIRED_EVENTS] }])
    const ok = await run('config', ['validate'], withToken)
    expect(ok.status).toBe(0)
    expect(line(ok, 'OK', 'webhook', 'ws/repo')).toBeDefined()
    expect(new Set(bitbucket.requests.map((r) => r.headers.authorization)))
      .toEqual(new Set([`Basic ${Buffer.from('ops@example.com:bb-first-time-token').toString('base64')}`]))
    expectNoSecrets(steps, skip, fail, ok)
  })

  it('validate reports a Bearer/Basic mismatch (401) and missing scopes (403) with their fixes', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { basic: { email: 'ops@example.com', token: 'bb-first-time-token' } }
    bitbucket.hooks.set('ws/repo', [])
    writeConfig(dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0000000001' } } } })
    const env = testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url, BITBUCKET_API_URL: bitbucket.url, BITBUCKET_TOKEN: 'bb-first-time-token' })
    const mismatch = await run('config', ['validate'], env)
    expect(mismatch.status).toBe(1)
    expect(line(mismatch, 'FAIL', 'webhook', 'ws/repo')).toContain('Bitbucket answered 401')
    expect(mismatch.stdout).toContain('a scoped API token needs BITBUCKET_AUTH_EMAIL')
    expect(bitbucket.requests[0]!.headers.authorization).toBe('Bearer bb-first-time-token')

    bitbucket.auth = undefined
    bitbucket.forbidden = [/\/hooks$/]
    const scopes = await run('config', ['validate'], env)
    expect(line(scopes, 'FAIL', 'webhook', 'ws/repo')).toContain('Bitbucket answered 403')
    expect(scopes.stdout).toContain('the access token lacks scopes; create one with repository, pullrequest, webhook')
    expectNoSecrets(mismatch, scopes)
  })
})
