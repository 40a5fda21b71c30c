import { describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { TEST_SECRET } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'

/** What a new user ran into (issue 16.7): each message now says what is wrong and where. */
const t = useDirAndSlack()

/** A port on 127.0.0.1 with nothing listening: connecting to it is refused. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

describe('a git host that cannot be reached', () => {
  it('is reported as unreachable at GITHUB_API_URL, not as "GitHub answered 500"', async () => {
    writeConfig(t.dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000001' } } } })
    const apiUrl = `http://127.0.0.1:${await closedPort()}`
    const env = testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, GITHUB_API_URL: apiUrl, GITHUB_TOKEN: 'ghp_unreachable' })
    for (const result of [await runCliAsync('config', ['validate'], env, t.dir.path), await runCliAsync('doctor', ['acme/api'], env, t.dir.path)]) {
      expect(result.status).toBe(1)
      expect(result.stdout).toMatch(new RegExp(`FAIL +webhook +acme/api +GitHub unreachable at ${apiUrl} \\(ECONNREFUSED\\) on GET /repos/acme/api/hooks`))
      expect(result.stdout).toContain('fix: check the network path to GitHub, or GITHUB_API_URL if you set it')
      expect(result.stdout).not.toContain('answered 500')
    }
  })

  it('is reported as unreachable at BITBUCKET_API_URL', async () => {
    writeConfig(t.dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0000000001' } } } })
    const apiUrl = `http://127.0.0.1:${await closedPort()}`
    const env = testEnv(t.dir.path, 'bitbucket', { SLACK_API_URL: t.slack.url, BITBUCKET_API_URL: apiUrl, BITBUCKET_TOKEN: 'bb-token' })
    const result = await runCliAsync('config', ['validate'], env, t.dir.path)
    expect(result.status).toBe(1)
    expect(result.stdout).toMatch(new RegExp(`FAIL +webhook +ws/repo +Bitbucket unreachable at ${apiUrl} \\(ECONNREFUSED\\)`))
    expect(result.stdout).toContain('BITBUCKET_API_URL if you set it')
  })
})

describe('prherald-doctor with a config that does not load', () => {
  it('prints one line per problem and still checks the secrets', async () => {
    const file = writeConfig(t.dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: '#general' }, web: { channel: 'nope' } } } })
    const env = testEnv(t.dir.path, 'github')
    delete env.SLACK_BOT_TOKEN
    const result = await runCliAsync('doctor', [], env, t.dir.path)
    expect(result.status).toBe(1)
    const fails = result.stdout.split('\n').filter((l) => /^ {2}FAIL {2}file /.test(l))
    expect(fails).toHaveLength(2)
    expect(fails[0]).toMatch(/mappings\.acme\.api\.channel: "#general"/)
    expect(fails[1]).toMatch(/mappings\.acme\.web\.channel: "nope"/)
    for (const line of fails) expect(line).toContain(file)
    expect(result.stdout).toMatch(/^ {2}FAIL {2}secret +SLACK_BOT_TOKEN +missing$/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}secret +GITHUB_WEBHOOK_SECRET \/ BITBUCKET_WEBHOOK_SECRET \/ GITLAB_WEBHOOK_SECRET +GITHUB_WEBHOOK_SECRET set$/m)
    expect(result.stdout).not.toContain(TEST_SECRET)
    expect(result.stdout).toMatch(/^1 OK, 2 SKIP, 3 FAIL$/m)
  })
})

describe('create-webhook on Bitbucket without PRHERALD_PUBLIC_URL', () => {
  it('prints the steps with a placeholder for the URL and exits 0', async () => {
    writeConfig(t.dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0000000001' } } } })
    const result = await runCliAsync('config', ['create-webhook', 'ws/repo'], testEnv(t.dir.path, 'bitbucket'), t.dir.path)
    expect(result.status).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout.split('\n')[0]).toMatch(/^PRHERALD_PUBLIC_URL is not set: replace <PRHERALD_PUBLIC_URL> below/)
    expect(result.stdout).toContain('URL: <PRHERALD_PUBLIC_URL>/webhook/bitbucket')
    expect(result.stdout).toContain('https://bitbucket.org/ws/repo/admin/webhooks')
  })
})
