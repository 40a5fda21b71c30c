import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { gitlabHook, startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync, type CliResult } from '../helpers/run-cli-async.ts'
import { TEST_SECRET } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * create-webhook, validate and doctor on GitLab, the built CLIs against the fake GitLab: a project in a nested
 * group, its hook created and updated, and the webhook check on an active, a disabled and an incomplete hook.
 */
const TOKEN = 'glpat-webhook-token-8f2a'
const PUBLIC_URL = 'https://prherald.example.com'
const HOOK_URL = `${PUBLIC_URL}/webhook/gitlab`
const PROJECT = 'platform/backend/api'
const PROJECT_ID = 'platform%2Fbackend%2Fapi'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let gitlab: FakeGitlab
let env: Env

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  gitlab = await startFakeGitlab()
  gitlab.token = TOKEN
  gitlab.hooks.set(PROJECT, [])
  writeConfig(dir.path, { git_provider: 'gitlab', mappings: { 'platform/backend': { api: { channel: 'C0000000001' } } } })
  env = testEnv(dir.path, 'gitlab', { SLACK_API_URL: slack.url, GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: TOKEN, PRHERALD_PUBLIC_URL: PUBLIC_URL })
})
afterEach(async () => {
  await slack.close()
  await gitlab.close()
  dir.remove()
})

const run = (cli: 'config' | 'doctor', args: string[], withEnv = env) => runCliAsync(cli, args, withEnv, dir.path)
const webhookLine = (result: CliResult, target = PROJECT) =>
  result.stdout.split('\n').find((l) => new RegExp(`^\\s*[A-Z]+\\s+webhook\\s+${target.replace('*', '\\*')}\\s`).test(l)) ?? ''
const prheraldHooks = () => gitlab.hooks.get(PROJECT)!.filter((h) => h.url === HOOK_URL)

describe('prherald-config create-webhook on GitLab', () => {
  it('creates a project hook with merge request, comment and pipeline events and the secret as its token; a second run updates it', async () => {
    gitlab.hooks.get(PROJECT)!.push(gitlabHook('https://ci.example.com/hook'))
    const created = await run('config', ['create-webhook', PROJECT])
    expect(created.stderr).toBe('')
    expect(created.status).toBe(0)
    const [hook] = prheraldHooks()
    expect(created.stdout).toContain(`created webhook ${hook!.id} on ${PROJECT}`)
    expect(hook).toMatchObject({ merge_requests_events: true, note_events: true, pipeline_events: true, push_events: false, enable_ssl_verification: true })
    expect(gitlab.hookTokens.get(hook!.id)).toBe(TEST_SECRET)
    expect(gitlab.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v4/projects/${PROJECT_ID}/hooks`, `POST /api/v4/projects/${PROJECT_ID}/hooks`])
    expect(gitlab.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true)

    // A rotated secret: the same hook, updated, not a second one.
    const again = await run('config', ['create-webhook', PROJECT], { ...env, GITLAB_WEBHOOK_SECRET: 'rotated-secret-value' })
    expect(again.status).toBe(0)
    expect(again.stdout).toContain(`updated webhook ${hook!.id} on ${PROJECT}`)
    expect(prheraldHooks()).toHaveLength(1)
    expect(gitlab.hookTokens.get(hook!.id)).toBe('rotated-secret-value')
    expect(gitlab.requests.at(-1)).toMatchObject({ method: 'PUT', path: `/api/v4/projects/${PROJECT_ID}/hooks/${hook!.id}` })
    for (const r of [created, again]) expect(r.stdout + r.stderr).not.toMatch(new RegExp(`${TOKEN}|${TEST_SECRET}|rotated-secret-value`))
  })

  it('without GITLAB_TOKEN: says what GitLab needs (the api scope, Maintainer), not GitHub\'s permission', async () => {
    const { GITLAB_TOKEN: _, ...withoutToken } = env
    const result = await run('config', ['create-webhook', PROJECT], withoutToken)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('GITLAB_TOKEN is not set: creating a webhook needs a token with the api scope and the Maintainer role on the project')
    expect(result.stderr).not.toContain('Webhooks: read and write')
  })

  it('a project GitLab does not know: exit 1 and the 404, no stack trace', async () => {
    const result = await run('config', ['create-webhook', 'platform/backend/missing'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('GitLab answered 404 to GET /projects/platform%2Fbackend%2Fmissing/hooks')
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })
})

describe('the webhook check on GitLab (validate and doctor)', () => {
  it('OK for an active hook; FAIL with the fix for a disabled one and for one GitLab disabled until a later time', async () => {
    const hook = gitlabHook(HOOK_URL, { merge_requests_events: true, note_events: true, pipeline_events: true, push_events: false })
    gitlab.hooks.set(PROJECT, [hook])
    const ok = await run('config', ['validate'])
    expect(ok.status, ok.stdout).toBe(0)
    expect(webhookLine(ok)).toMatch(new RegExp(`^\\s*OK\\s+webhook\\s+${PROJECT}\\s+webhook ${HOOK_URL} is active with all 3 events`))
    const doctorOk = await run('doctor', [PROJECT])
    expect(doctorOk.status, doctorOk.stdout).toBe(0)
    expect(webhookLine(doctorOk)).toMatch(/^\s*OK\s/)

    Object.assign(hook, { alert_status: 'disabled' })
    // --force: the lock written by the passing run above would skip an unchanged entry.
    for (const result of [await run('config', ['validate', '--force']), await run('doctor', [PROJECT])]) {
      expect(result.status, result.stdout).toBe(1)
      expect(webhookLine(result)).toMatch(new RegExp(`^\\s*FAIL\\s+webhook\\s+${PROJECT}\\s+webhook ${HOOK_URL} is inactive`))
      expect(result.stdout).toContain('successful test delivery (Settings > Webhooks > Test)')
    }
    Object.assign(hook, { alert_status: 'temporarily_disabled', disabled_until: new Date(Date.now() + 3_600_000).toISOString() })
    expect(webhookLine(await run('doctor', [PROJECT]))).toMatch(/^\s*FAIL\s.* is inactive/)
    // Its back-off over, GitLab sends to it again.
    Object.assign(hook, { disabled_until: new Date(Date.now() - 60_000).toISOString() })
    expect(webhookLine(await run('doctor', [PROJECT]))).toMatch(/^\s*OK\s/)
  }, 60_000)

  it('FAIL naming the missing events; WARN without pipelines', async () => {
    gitlab.hooks.set(PROJECT, [gitlabHook(HOOK_URL, { merge_requests_events: true })])
    const missing = await run('doctor', [PROJECT])
    expect(missing.status).toBe(1)
    expect(webhookLine(missing)).toContain(`webhook ${HOOK_URL} does not send note_events`)
    expect(missing.stdout).toContain(`tick Merge request events, Comments and Pipeline events on the hook, or run prherald-config create-webhook ${PROJECT}`)

    gitlab.hooks.set(PROJECT, [gitlabHook(HOOK_URL, { merge_requests_events: true, note_events: true })])
    const noPipelines = await run('doctor', [PROJECT])
    expect(noPipelines.status).toBe(0)
    expect(webhookLine(noPipelines)).toMatch(/^\s*WARN\s.*does not send pipeline_events \(messages show no checks\)/)
  })

  it('"*" checks each project directly in the group, listed over pages, not those of its subgroups', async () => {
    writeConfig(dir.path, { git_provider: 'gitlab', mappings: { 'platform/backend': { api: { channel: 'C0000000001' }, '*': { channel: 'C0000000002' } } } })
    gitlab.perPage = 2
    const names = ['api', 'billing', 'auth', 'web']
    gitlab.groupProjects.set('platform/backend', names)
    const full = gitlabHook(HOOK_URL, { merge_requests_events: true, note_events: true, pipeline_events: true })
    for (const name of names) gitlab.hooks.set(`platform/backend/${name}`, name === 'web' ? [] : [{ ...full }])
    const result = await run('config', ['validate'])
    for (const name of ['billing', 'auth']) expect(webhookLine(result, `platform/backend/${name}`)).toMatch(/^\s*OK\s/)
    expect(webhookLine(result, 'platform/backend/web')).toMatch(/^\s*FAIL\s.*no webhook whose URL ends in \/webhook\/gitlab/)
    expect(result.status).toBe(1)
    const listing = gitlab.requests.filter((r) => r.path === '/api/v4/groups/platform%2Fbackend/projects')
    expect(listing.map((r) => r.query.get('include_subgroups'))).toEqual(['false'])
    // Asked for 100 a page, GitLab's limit; the fake's default of 2 would have needed two.
    expect(listing[0]!.query.get('per_page')).toBe('100')
  })
})
