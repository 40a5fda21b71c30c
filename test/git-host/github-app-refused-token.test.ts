import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createGithubClient, githubCall, type GithubClient } from '../../src/hosts/github/client.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { createTestGithubApp, installationOfRequest, type TestGithubApp } from '../helpers/fake-github-app.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * An installation token GitHub stops accepting before its hour (revoked, a clock that jumped) is dropped at
 * the first 401: a new one is taken and the call made once more, instead of failing every call of that
 * owner until the cached token's hour is up. When GitHub refuses the new one too, the error says what to do
 * about the app, not about GITHUB_TOKEN.
 */
let dir: ReturnType<typeof makeTempDir>
let github: FakeGithub
let app: TestGithubApp
let client: GithubClient

beforeEach(async () => {
  dir = makeTempDir()
  github = await startFakeGithub()
  app = createTestGithubApp(dir.path)
  app.state.installations.set('acme', { id: 101, type: 'Organization' })
  github.app = app.state
  github.pullFiles.set('acme/api#7', ['docs/readme.md'])
  client = createGithubClient({ baseUrl: github.url, app: { appId: app.id, privateKey: app.privateKey, installationId: undefined, secrets: [] } })
})
afterEach(async () => {
  await github.close()
  dir.remove()
})

const listFiles = () => githubCall(client, 'GET /repos/acme/api/pulls/7/files', () =>
  client.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { owner: 'acme', repo: 'api', pull_number: 7 }))
const issued = () => github.requests.filter((r) => r.path === '/app/installations/101/access_tokens')
const fileCalls = () => github.requests.filter((r) => r.path.endsWith('/files'))

describe('a GitHub App installation token refused before its hour', () => {
  it('is replaced at the first 401 and the call made once more with the new token', async () => {
    expect((await listFiles()).status).toBe(200)
    const [first] = [...app.state.tokens.keys()]
    // Revoked as GitHub's DELETE /installation/token does it, 59 minutes before it would expire.
    const revoke = await fetch(`${github.url}/installation/token`, { method: 'DELETE', headers: { authorization: `token ${first}` } })
    expect(revoke.status).toBe(204)

    expect((await listFiles()).status).toBe(200)
    expect(issued()).toHaveLength(2)
    const tokens = fileCalls().map((r) => r.headers.authorization)
    expect(tokens).toHaveLength(3)
    expect(tokens[1]).toBe(tokens[0])
    expect(tokens[2]).not.toBe(tokens[1])
    expect(installationOfRequest(app.state, fileCalls()[2]!)).toBe(101)

    // The new token is kept: the next call takes no third.
    expect((await listFiles()).status).toBe(200)
    expect(issued()).toHaveLength(2)
  })

  it('is replaced once for many calls refused together', async () => {
    await listFiles()
    app.state.tokens.clear()
    const answers = await Promise.all([listFiles(), listFiles(), listFiles()])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(issued()).toHaveLength(2)
  })

  it('when the new token is refused too, stops after one more call and gives the app\'s fix', async () => {
    await listFiles()
    app.state.refuseTokens = true
    const error = await listFiles().then(() => undefined, (e: unknown) => e)
    expect(isPrheraldError(error, 'git_host_auth')).toBe(true)
    const { message, fix } = error as { message: string; fix?: string }
    expect(message).toContain(`GitHub App ${app.id}`)
    expect(fix).toContain('installed on acme')
    expect(fix).toContain('GITHUB_APP_PRIVATE_KEY_FILE')
    expect(fix).not.toContain('GITHUB_TOKEN')
    expect(issued()).toHaveLength(2)
    expect(fileCalls()).toHaveLength(3)
  })
})
