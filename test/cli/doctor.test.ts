import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { GITHUB_OPTIONAL_EVENTS, GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { BITBUCKET_REQUIRED_EVENTS } from '../../src/hosts/bitbucket/events.ts'
import { readMigrations } from '../../src/store/migrations.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { TEST_SECRET, TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack | undefined
let github: FakeGithub | undefined
beforeEach(() => {
  dir = makeTempDir()
  writeConfig(dir.path, {
    git_provider: 'github',
    mappings: { acme: { '*': { channel: 'C0000000001' }, api: { channel: 'C0000000002', paths: { 'web/': { channel: 'C0000000003' } } } } },
  })
})
afterEach(async () => {
  await slack?.close()
  await github?.close()
  slack = github = undefined
  dir.remove()
})

const doctor = (args: string[], env = testEnv(dir.path, 'github')) => runCliAsync('doctor', args, env, dir.path)
const dbFile = () => join(dir.path, 'prherald.db')

describe('prherald-doctor', () => {
  it('on a fresh machine reports the database as not created yet, creates nothing, and prints secrets only as set/missing', async () => {
    const result = await doctor([])
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^\[config\]\n {2}OK {4}file +\S+config\.yaml +parses: git_provider github, 2 mapping entries$/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}secret +SLACK_BOT_TOKEN +set$/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}secret +GITHUB_WEBHOOK_SECRET +set$/m)
    expect(result.stdout).toMatch(/^ {2}SKIP {2}token +GITHUB_TOKEN +missing \(optional/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}ttl +cleanup\.message_ttl_days +30 days$/m)
    expect(result.stdout).toMatch(/^\[database\]\n {2}SKIP {2}file +\S+prherald\.db +not created yet; the server creates it/m)
    expect(result.stdout).toMatch(/^\[mappings\]\n {2}OK {4}entries +\S+ +2 entries for 1 owner$/m)
    expect(result.stdout).toMatch(/^ {2}SKIP {2}path routing +GITHUB_TOKEN +1 entry with path rules, but GITHUB_TOKEN is not set: path rules are inert$/m)
    expect(result.stdout).toMatch(/^ {2}SKIP {2}config\.lock .*the next server start validates every entry$/m)
    expect(result.stdout).not.toContain(TEST_SLACK_TOKEN)
    expect(result.stdout).not.toContain(TEST_SECRET)
    expect(existsSync(dbFile())).toBe(false)
    expect(readdirSync(dir.path)).toEqual(['config.yaml'])
  })

  it('reports whether the Start review button is on, with the Request URL to set in Slack, and never the signing secret', async () => {
    const off = await doctor([])
    expect(off.stdout).toMatch(/^ {2}SKIP {2}button +SLACK_SIGNING_SECRET +unset \(optional\): messages have no Start review button$/m)
    const signingSecret = 'f0e1d2c3b4a5968778695a4b3c2d1e0f'
    const on = await doctor([], testEnv(dir.path, 'github', { SLACK_SIGNING_SECRET: signingSecret, PRHERALD_PUBLIC_URL: 'https://prherald.example.com/' }))
    expect(on.status).toBe(0)
    expect(on.stdout).toMatch(/^ {2}OK {4}button +SLACK_SIGNING_SECRET +set: Start review button on; the Slack app's Interactivity Request URL must be https:\/\/prherald\.example\.com\/webhook\/slack\/interactions/m)
    expect(on.stdout).not.toContain(signingSecret)
  })

  it('warns about a webhook secret shorter than 16 characters, without failing and without printing it', async () => {
    const result = await doctor([], testEnv(dir.path, 'github', { GITHUB_WEBHOOK_SECRET: 'short-s3cret' }))
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^ {2}WARN {2}secret +GITHUB_WEBHOOK_SECRET +set, but shorter than 16 characters\n {8}fix: use a random secret/m)
    expect(result.stdout).not.toContain('short-s3cret')
  })

  it('FAILs an http:// PRHERALD_PUBLIC_URL except on loopback', async () => {
    const plain = await doctor([], testEnv(dir.path, 'github', { PRHERALD_PUBLIC_URL: 'http://prherald.example.com' }))
    expect(plain.status).toBe(1)
    expect(plain.stdout).toMatch(/^ {2}FAIL {2}public url +PRHERALD_PUBLIC_URL +http:\/\/prherald\.example\.com is http:\/\/: deliveries would cross the network unencrypted/m)
    for (const url of ['http://127.0.0.1:8080', 'http://[::1]:8080', 'http://localhost:8080', 'https://prherald.example.com']) {
      const result = await doctor([], testEnv(dir.path, 'github', { PRHERALD_PUBLIC_URL: url }))
      expect(result.stdout, url).toMatch(new RegExp(`^ {2}OK {4}public url +PRHERALD_PUBLIC_URL +${url.replace(/[.[\]]/g, '\\$&')}$`, 'm'))
    }
  })

  it('exits 1 when a required secret is missing, or the config does not load', async () => {
    const env = testEnv(dir.path, 'github')
    delete env.GITHUB_WEBHOOK_SECRET
    const missing = await doctor([], env)
    expect(missing.status).toBe(1)
    expect(missing.stdout).toMatch(/^ {2}FAIL {2}secret +GITHUB_WEBHOOK_SECRET +missing\n {8}fix: set GITHUB_WEBHOOK_SECRET/m)

    writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: '#general' } } } })
    const invalid = await doctor([])
    expect(invalid.status).toBe(1)
    expect(invalid.stdout).toMatch(/FAIL {2}file +\S+config\.yaml +(line \d+, )?mappings\.acme\.api\.channel: "#general"/)
    expect(invalid.stdout).toMatch(/^\[database\]\n {2}SKIP .*the config did not load/m)
  })

  it('reports migrations, stored messages and deliveries waiting in the intake of an existing database', async () => {
    expect((await runCliAsync('migrate', ['up'], testEnv(dir.path, 'github'), dir.path)).status).toBe(0)
    const db = new Database(dbFile())
    db.prepare("INSERT INTO slack_messages (provider, repository, pr_number, channel, ts, state, lifecycle, created_at, touched_at) VALUES ('github', 'acme/api', 1, 'C0000000002', '1.0', 'open', '{}', 0, 0)").run()
    db.prepare("INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at) VALUES ('github', 'd1', 'k', '{}', 0), ('github', 'd2', 'k', '{}', 0)").run()
    db.close()
    const result = await doctor([])
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^ {2}OK {4}file +\S+ +opens$/m)
    expect(result.stdout).toMatch(new RegExp(`^ {2}OK {4}migrations +\\S+ +all ${readMigrations().length} applied$`, 'm'))
    expect(result.stdout).toMatch(/^ {2}OK {4}hosts +\S+ +holds pull requests of github$/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}slack_messages +\S+ +1 row$/m)
    expect(result.stdout).toMatch(/^ {2}OK {4}intake +\S+ +2 deliveries waiting; replayed at the next start$/m)
  })

  it('with <owner>/<repo> adds the Slack and webhook checks of that repository, path-rule channels included', async () => {
    slack = await startFakeSlack({ anyChannel: true })
    github = await startFakeGithub()
    github.hooks.set('acme/api', [{ id: 1, name: 'web', active: true, events: [...GITHUB_REQUIRED_EVENTS, ...GITHUB_OPTIONAL_EVENTS], config: { url: 'https://x.example/webhook/github', content_type: 'json', insecure_ssl: '0' } }])
    const env = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp-doctor' })
    const ok = await doctor(['acme/api'], env)
    expect(ok.status).toBe(0)
    const section = ok.stdout.slice(ok.stdout.indexOf('[acme/api]'))
    // Printed as each check completes, so in the order the answers came.
    expect(section.split('\n').slice(1, 6).map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')).sort()).toEqual([
      'OK mapping', 'OK slack-auth', 'OK slack-channel', 'OK slack-channel', 'OK webhook',
    ])
    expect(slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel).sort()).toEqual(['C0000000002', 'C0000000003'])

    slack.channels.set('C0000000003', { name: 'web', is_member: false })
    const failing = await doctor(['acme/api'], env)
    expect(failing.status).toBe(1)
    expect(failing.stdout).toContain('FAIL  slack-channel  acme/api         the bot is not a member of C0000000003 (#web)')
  })

  it('rejects a malformed repository argument', async () => {
    const result = await doctor(['acme'])
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('"acme" is not a repository')
  })
})
