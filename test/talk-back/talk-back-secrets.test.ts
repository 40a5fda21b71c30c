import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readSecrets, secretValues } from '../../src/config/load-config.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { startPrherald, testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { newTokenKey } from '../helpers/talk-back-setup.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** Issue 33.4: talk-back's secrets come from the environment, are checked at the start and never logged. */
const HOSTS = (['github', 'gitlab', 'bitbucket'] as const).map((id) => ({ id, host: hostOf(id) }))
const BASE = { SLACK_BOT_TOKEN: 'xoxb-1', GITHUB_WEBHOOK_SECRET: 'g'.repeat(32), GITLAB_WEBHOOK_SECRET: 'l'.repeat(32), BITBUCKET_WEBHOOK_SECRET: 'b'.repeat(32) }

describe('talk-back secrets', () => {
  it('reads each host\'s OAuth client and the token keys, and puts the secrets on the redaction list', () => {
    const key = newTokenKey()
    const previous = newTokenKey()
    const secrets = readSecrets({
      ...BASE, GITHUB_OAUTH_CLIENT_ID: 'Iv1.gh', GITHUB_OAUTH_CLIENT_SECRET: 'gh-client-secret', GITLAB_OAUTH_CLIENT_ID: 'gl-id', GITLAB_OAUTH_CLIENT_SECRET: 'gl-client-secret',
      GITLAB_API_URL: 'https://gitlab.example.com/root/api/v4', PRHERALD_TOKEN_KEY: key, PRHERALD_TOKEN_KEY_PREVIOUS: previous,
    }, HOSTS.map((h) => ({ ...h, apiUrl: h.id === 'gitlab' ? 'https://gitlab.example.com/root/api/v4' : h.host.defaultApiUrl })))
    expect(secrets.hosts.github!.oauth).toEqual({ clientId: 'Iv1.gh', clientSecret: 'gh-client-secret', webUrl: 'https://github.com' })
    expect(secrets.hosts.gitlab!.oauth).toMatchObject({ webUrl: 'https://gitlab.example.com/root' })
    expect(secrets.hosts.bitbucket!.oauth).toBeUndefined()
    const redacted = secretValues(secrets)
    expect(redacted).toEqual(expect.arrayContaining(['gh-client-secret', 'gl-client-secret', key, previous]))
    // A client id is no secret (it is in every authorize URL).
    expect(redacted).not.toContain('Iv1.gh')
  })

  it('refuses an OAuth client half set, naming the missing variable', () => {
    let error: unknown
    try { readSecrets({ ...BASE, GITLAB_OAUTH_CLIENT_ID: 'gl-id' }, HOSTS) } catch (e) { error = e }
    expect(isPrheraldError(error, 'config_invalid') && error.message).toBe('GITLAB_OAUTH_CLIENT_SECRET is not set, but GITLAB_OAUTH_CLIENT_ID is')
  })
})

describe('a bad token key at the start', () => {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => { dir = makeTempDir() })
  afterEach(() => dir.remove())

  it('stops the start with a config error naming the variable and the decoded length, never the value', async () => {
    writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { '*': { channel: 'C0000000001' } } } })
    let error: unknown
    await startPrherald(dir.path, testEnv(dir.path, 'github', { PRHERALD_TOKEN_KEY: 'c2hvcnQta2V5' })).then((s) => s.stop(), (e: unknown) => { error = e })
    expect(isPrheraldError(error, 'config_invalid') && error.message).toBe('PRHERALD_TOKEN_KEY must be 32 bytes in base64; it decodes to 9 bytes')
    expect(String(isPrheraldError(error) && `${error.message} ${error.fix}`)).not.toContain('c2hvcnQta2V5')
  })
})
