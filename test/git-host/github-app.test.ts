import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readGithubAccess } from '../../src/hosts/github/app-credentials.ts'
import { gitSecrets, hasCredentials } from '../../src/hosts/contract.ts'
import { createTestGithubApp, installationOfRequest, type TestGithubApp } from '../helpers/fake-github-app.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const ORG_CHANNEL = 'C00000ACMEAPI'
const ORG_DOCS = 'C00000ACMEDOC'
const USER_CHANNEL = 'C0000CODERTO'
const USER_DOCS = 'C00000CODEDOC'

const h = usePrherald()
let github: FakeGithub
let app: TestGithubApp

beforeEach(async () => {
  github = await startFakeGithub()
  app = createTestGithubApp(h.dir.path)
  app.state.installations.set('acme', { id: 101, type: 'Organization' })
  app.state.installations.set('Codertocat', { id: 202, type: 'User' })
  github.app = app.state
})
afterEach(async () => {
  await github.close()
})

const appEnv = () => ({ GITHUB_API_URL: github.url, GITHUB_APP_ID: String(app.id), GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })

/** A pull request of `owner/repo` (the example payload, moved). */
function pullRequestOf(owner: string, repo: string, number: number) {
  const payload = pullRequest('opened', number, { title: `Change docs of ${owner}` })
  payload.repository.owner.login = owner
  payload.repository.name = repo
  payload.repository.full_name = `${owner}/${repo}`
  payload.pull_request.html_url = `https://github.com/${owner}/${repo}/pull/${number}`
  return payload
}

describe('a GitHub App instead of GITHUB_TOKEN', () => {
  it('routes by changed files for two owners, each call with its own installation token', async () => {
    writeConfig(h.dir.path, {
      git_provider: 'github',
      mappings: {
        acme: { api: { channel: ORG_CHANNEL, paths: { 'docs/': { channel: ORG_DOCS } } } },
        Codertocat: { 'Hello-World': { channel: USER_CHANNEL, paths: { 'docs/': { channel: USER_DOCS } } } },
      },
    })
    github.pullFiles.set('acme/api#7', ['docs/readme.md'])
    github.pullFiles.set('Codertocat/Hello-World#8', ['src/index.ts'])
    github.pullFiles.set('acme/api#9', ['src/main.ts'])
    await h.start(h.env({ ...appEnv() }))

    for (const [owner, repo, n] of [['acme', 'api', 7], ['Codertocat', 'Hello-World', 8], ['acme', 'api', 9]] as const) {
      expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequestOf(owner, repo, n) })).status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
    }

    // The docs change goes to the docs channel; the others to the repository's.
    expect(h.slack.messagesIn(ORG_DOCS)).toHaveLength(1)
    expect(h.slack.messagesIn(ORG_CHANNEL)).toHaveLength(1)
    expect(h.slack.messagesIn(USER_CHANNEL)).toHaveLength(1)
    expect(h.slack.messagesIn(USER_DOCS)).toHaveLength(0)
    const files = github.requests.filter((r) => r.path.endsWith('/files'))
    expect(files.map((r) => [r.path, installationOfRequest(app.state, r)])).toEqual([
      ['/repos/acme/api/pulls/7/files', 101],
      ['/repos/Codertocat/Hello-World/pulls/8/files', 202],
      ['/repos/acme/api/pulls/9/files', 101],
    ])
    // Each owner's installation is looked up once, and each installation's token issued once.
    const lookups = github.requests.filter((r) => r.path.endsWith('/installation')).map((r) => r.path)
    expect(lookups.filter((p) => p === '/orgs/acme/installation')).toHaveLength(1)
    expect(lookups.filter((p) => p.includes('Codertocat'))).toEqual(['/orgs/Codertocat/installation', '/users/Codertocat/installation'])
    expect(github.requests.filter((r) => r.path.endsWith('/access_tokens')).map((r) => r.path))
      .toEqual(['/app/installations/101/access_tokens', '/app/installations/202/access_tokens'])

    // The key is a secret of the logger's, and no line carries it.
    const keyBody = app.privateKey.split('\n')[1]!
    expect(h.service!.logs.length).toBeGreaterThan(0)
    expect(h.service!.logs.filter((l) => l.includes(keyBody))).toEqual([])
  })

  it('uses GITHUB_APP_INSTALLATION_ID for every owner without looking one up', async () => {
    writeConfig(h.dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: ORG_CHANNEL, paths: { 'docs/': { channel: ORG_DOCS } } } } } })
    github.pullFiles.set('acme/api#7', ['docs/readme.md'])
    await h.start(h.env({ ...appEnv(), GITHUB_APP_INSTALLATION_ID: '101' }))
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequestOf('acme', 'api', 7) })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.messagesIn(ORG_DOCS)).toHaveLength(1)
    expect(github.requests.filter((r) => r.path.endsWith('/installation'))).toEqual([])
  })
})

describe('reading the app credentials', () => {
  it('counts an app as credentials, names it for the doctor, and gives the key to the redaction list', () => {
    const access = readGithubAccess({ GITHUB_APP_ID: '12345', GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })
    expect(hasCredentials(access)).toBe(true)
    expect(access.scheme).toBe('GitHub App 12345 (installation per owner)')
    expect(gitSecrets(access)).toEqual([app.privateKey])
    expect(readGithubAccess({ GITHUB_APP_ID: '12345', GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile, GITHUB_APP_INSTALLATION_ID: '77' }).scheme)
      .toBe('GitHub App 12345 (installation 77)')
    expect(hasCredentials(readGithubAccess({}))).toBe(false)
  })

  it('refuses a token and an app together, and half an app', () => {
    expect(() => readGithubAccess({ GITHUB_TOKEN: 'ghp_x', GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })).toThrow(/GITHUB_TOKEN and GITHUB_APP_ID are both set/)
    expect(() => readGithubAccess({ GITHUB_APP_ID: '1' })).toThrow(/GITHUB_APP_PRIVATE_KEY_FILE is not/)
    expect(() => readGithubAccess({ GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })).toThrow(/GITHUB_APP_ID is not/)
    expect(() => readGithubAccess({ GITHUB_APP_ID: 'my-app', GITHUB_APP_PRIVATE_KEY_FILE: app.keyFile })).toThrow(/GITHUB_APP_ID is "my-app", not a number/)
  })
})
