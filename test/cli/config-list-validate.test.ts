import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, {
    git_provider: 'github',
    mappings: {
      acme: {
        '*': { channel: 'C0123456789', mentions: ['<!here>'] },
        api: { channel: 'C0234567890', mentions: ['<@U0123ABCD>', '<!subteam^S0123ABCD>'] },
        web: {},
        monorepo: { mentions: [], paths: { 'services/billing/': { channel: 'C0456789012', mentions: ['<@U0456DEFG>'] }, 'web/': { channel: 'C0567890123' } } },
      },
    },
  })
})
afterEach(async () => {
  await slack.close()
  dir.remove()
})

const config = (args: string[]) => runCliAsync('config', args, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), dir.path)

describe('prherald-config list', () => {
  it('prints one row per entry with inherited channel and mentions resolved', async () => {
    const result = await config(['list'])
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'GitHub (git_provider: github, route /webhook/github):',
      'OWNER  REPO      CHANNEL      MENTIONS                           PATHS                                                         REACTIONS',
      'acme   *         C0123456789  <!here>                            -                                                             default',
      'acme   api       C0234567890  <@U0123ABCD> <!subteam^S0123ABCD>  -                                                             default',
      'acme   web       C0123456789  <!here>                            -                                                             default',
      'acme   monorepo  C0123456789  -                                  services/billing/→C0456789012 <@U0456DEFG>; web/→C0567890123  default',
      'reviews.ignore_bot_reviews     false',
      'reviews.dependency_bots        compact',
      'reviews.dependency_bot_logins  dependabot[bot] renovate[bot]',
      'users: none',
      'teams: none',
      'slack.lookup_users_by_email: false',
      'server.metrics_listen: not set (GET /metrics on the webhook listener 127.0.0.1:0; keep your reverse proxy from forwarding it)',
      'server.ack_thread: false (one event loop acknowledges and processes deliveries)',
      "slack.socket_mode: false (Slack's requests at the HTTP routes, with SLACK_SIGNING_SECRET)",
      'slack.pacing: off (only 429 Retry-After is honoured)', // the tests' environment sets PRHERALD_SLACK_PACING=off
      'slack.thread_updates: false',
      'notify.review_requests: thread (a newly requested reviewer mapped in users: or teams: is pinged in the thread)',
      'slack.talk_back: thread_replies off, reviews off, review_actions menu, mirror off, external linked (people cannot answer from Slack; docs/talk-back.md)',
      'notify.direct_messages: opt_in (only people who turn them on: /prherald dm on, or direct_messages: on in users:)',
      "notify.working_hours: 08:00-19:00 (Monday to Friday, in each person's Slack time zone; held until the next start outside them)",
      'notify.time_zone: UTC (for people whose Slack profile has none)',
      'digest.enabled                  true',
      'digest.schedule                 0 9 * * 1-5',
      'digest.timezone                 UTC',
      'digest.holidays                 - (weekends only)',
      'digest.mention                  false',
      'digest.include_dependency_bots  false',
      'notify.merged_without_approval: off',
      'notify.reminders: off',
      'insights.enabled: false, insights.keep_days: 400 (no turnaround rows are kept)',
      'insights.weekly: off',
      'reconcile.on_start: false',
      `database: file:${join(dir.path, 'prherald.db')} (SQLite: one server)`,
      'database.retry_attempts: 10, database.retry_backoff_seconds: 1 (a failed batch is retried after 1 s, doubling up to 300 s; parked after 10 failures)',
    ])
    expect(slack.calls).toHaveLength(0)
  })

  it('prints a PostgreSQL database without its password, with the lease', async () => {
    writeConfig(dir.path, { git_provider: 'github', database: { lease_seconds: 4 }, mappings: { acme: { api: { channel: 'C0123456789' } } } })
    const result = await runCliAsync('config', ['list'], testEnv(dir.path, 'github', { PRHERALD_DATABASE_URL: 'postgres://prherald:Pw-list-9c1@db.example.com/prherald' }), dir.path)
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('database: postgres://***@db.example.com/prherald (PostgreSQL: replicas share it; database.lease_seconds 4)')
    expect(result.stdout + result.stderr).not.toContain('Pw-list-9c1')
  })

  it('prints several channels, per-channel mentions and the effective emoji per repository', async () => {
    writeConfig(dir.path, {
      git_provider: 'github',
      server: { metrics_listen: '127.0.0.1:9464', ack_thread: true },
      slack: { reactions: { merged: 'rocket' }, lookup_users_by_email: true, thread_updates: true, talk_back: { thread_replies: 'linked', mirror: 'comments' } },
      reviews: { ignore_bot_reviews: true, dependency_bots: 'standard', dependency_bot_logins: ['Acme-Renovate[bot]'] },
      digest: { schedule: '30 8 * * 1-5', timezone: 'Europe/Berlin', holidays: 'DE-BY', mention: true, include_dependency_bots: true },
      notify: { review_requests: 'off', reminders: { after: '4h' } },
      users: { octocat: 'U0123ABCD', 'Dave-Smith': 'W0456DEFG' },
      teams: { backend: 'S0123ABCD' },
      mappings: {
        acme: {
          '*': { channel: 'C0123456789', slack: { reactions: { new_pr: 'new' }, talk_back: { reviews: 'on' } } },
          api: { channels: ['C0234567890', { id: 'C0345678901', mentions: [] }], mentions: ['<!here>'], slack: { reactions: { approved: 'thumbsup' }, talk_back: { mirror: 'all' } }, digest: { schedule: '0 10 * * 1' } },
          docs: { slack: { reactions: { enabled: false }, thread_updates: false, talk_back: { thread_replies: 'off', reviews: 'off', mirror: 'off' } }, digest: { enabled: false } },
        },
      },
    })
    const result = await config(['list'])
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'GitHub (git_provider: github, route /webhook/github):',
      'OWNER  REPO  CHANNEL                  MENTIONS                              PATHS  REACTIONS',
      'acme   *     C0123456789              -                                     -      new_pr=new merged=rocket',
      'acme   api   C0234567890 C0345678901  C0234567890: <!here>; C0345678901: -  -      new_pr=new approved=thumbsup merged=rocket',
      'acme   docs  C0123456789              -                                     -      off',
      'reviews.ignore_bot_reviews     true',
      'reviews.dependency_bots        standard',
      'reviews.dependency_bot_logins  dependabot[bot] renovate[bot] acme-renovate[bot]',
      'users: 2 mapped (GitHub logins, case ignored; unmapped people show as plain text)',
      '  dave-smith  W0456DEFG',
      '  octocat     U0123ABCD',
      'teams: 1 mapped (GitHub team slugs, case ignored)',
      '  backend  S0123ABCD',
      'slack.lookup_users_by_email: true (unmapped people found by their public GitHub email)',
      'server.metrics_listen: 127.0.0.1:9464 (GET /metrics there only; the webhook listener answers it 404)',
      'server.ack_thread: true (webhook deliveries are read, verified, stored and acknowledged on a thread of their own; the main event loop processes them)',
      "slack.socket_mode: false (Slack's requests at the HTTP routes, with SLACK_SIGNING_SECRET)",
      'slack.pacing: off (only 429 Retry-After is honoured)',
      'slack.thread_updates: true (false for acme/docs)',
      'notify.review_requests: off (requested reviewers are not pinged)',
      'slack.talk_back: thread_replies linked, reviews off, review_actions menu, mirror comments, external linked',
      '  acme/*: thread_replies linked, reviews on, review_actions menu, mirror comments, external linked',
      '  acme/api: thread_replies linked, reviews on, review_actions menu, mirror all, external linked',
      '  acme/docs: thread_replies off, reviews off, review_actions menu, mirror off, external linked',
      'notify.direct_messages: opt_in (only people who turn them on: /prherald dm on, or direct_messages: on in users:)',
      "notify.working_hours: 08:00-19:00 (Monday to Friday, in each person's Slack time zone; held until the next start outside them)",
      'notify.time_zone: UTC (for people whose Slack profile has none)',
      'digest.enabled                  true',
      'digest.schedule                 30 8 * * 1-5',
      'digest.timezone                 Europe/Berlin',
      'digest.holidays                 DE-BY',
      'digest.mention                  true',
      'digest.include_dependency_bots  true',
      'digest by entry                 acme/api: 0 10 * * 1; acme/docs: off',
      'notify.merged_without_approval: off',
      "notify.reminders: after 4h, every 1d, escalate_after 3d (each person's working time; a direct message to whoever holds a pull request, then a line in its thread)",
      'insights.enabled: false, insights.keep_days: 400 (no turnaround rows are kept)',
      'insights.weekly: off',
      'reconcile.on_start: false',
      `database: file:${join(dir.path, 'prherald.db')} (SQLite: one server)`,
      'database.retry_attempts: 10, database.retry_backoff_seconds: 1 (a failed batch is retried after 1 s, doubling up to 300 s; parked after 10 failures)',
    ])
  })
})

describe('prherald-config validate', () => {
  it('writes config.lock (0600), then re-checks only changed entries, everything with --force, one entry when named', async () => {
    const first = await config(['validate'])
    expect(first.status).toBe(0)
    expect(first.stdout).toMatch(/^4 of 4 entries checked: \d+ OK, 4 SKIP, 0 FAIL; config\.lock written/m)
    const lockFile = join(dir.path, 'config.lock')
    expect(statSync(lockFile).mode & 0o777).toBe(0o600)
    // Keyed by host: one owner/repo on two hosts is two entries.
    expect(Object.keys((JSON.parse(readFileSync(lockFile, 'utf8')) as { hosts: { github: { entries: object } } }).hosts.github.entries)).toEqual(['acme/*', 'acme/api', 'acme/web', 'acme/monorepo'])

    slack.calls.length = 0
    const second = await config(['validate'])
    expect(second.status).toBe(0)
    expect(second.stdout).toMatch(/^OK {4}lock +acme\/api +unchanged since validated at \S+; not re-checked \(--force re-checks\)$/m)
    expect(second.stdout).toContain('0 of 4 entries checked')
    expect(slack.calls).toHaveLength(0)

    const forced = await config(['validate', '--force'])
    expect(forced.stdout).toContain('4 of 4 entries checked')
    expect(slack.count('conversations.info')).toBe(4) // once per distinct channel

    slack.calls.length = 0
    const one = await config(['validate', 'acme/web'])
    expect(one.status).toBe(0)
    expect(one.stdout).toMatch(/^OK {4}slack-channel +acme\/web +C0123456789/m)
    expect(one.stdout).toContain('acme/web: 3 OK, 1 SKIP, 0 FAIL; config.lock updated')
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test', 'conversations.info'])
  })

  it('warns about a webhook secret shorter than 16 characters, as doctor does, without printing it or failing', async () => {
    const env = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_WEBHOOK_SECRET: 'short-s3cret' })
    for (const args of [['validate'], ['validate', 'acme/web']]) {
      const result = await runCliAsync('config', args, env, dir.path)
      expect(result.status).toBe(0)
      expect(result.stdout).toMatch(/^WARN {2}secret +GITHUB_WEBHOOK_SECRET +set, but shorter than 16 characters\n {6}fix: use a random secret/m)
      expect(result.stdout + result.stderr).not.toContain('short-s3cret')
    }
    const long = await config(['validate', 'acme/web'])
    expect(long.stdout).not.toContain('shorter than')
  })

  it('validates a repository that only the owner\'s "*" covers without adding it to config.lock, and FAILs one nothing covers', async () => {
    const covered = await config(['validate', 'acme/other'])
    expect(covered.status).toBe(0)
    expect(covered.stdout).toMatch(/^OK {4}mapping +acme\/other +channel C0123456789 \(from acme\/\*\), 1 mention$/m)
    expect(covered.stdout).toContain('not a mapping entry of its own, config.lock unchanged')

    const unmapped = await config(['validate', 'globex/api'])
    expect(unmapped.status).toBe(1)
    expect(unmapped.stdout).toMatch(/^FAIL {2}mapping +globex\/api +no mapping entry for globex\/api/m)
  })

  it('checks every channel of a repository with several channels, and FAILs the one Slack does not know', async () => {
    writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channels: ['C0234567890', { id: 'C0999999999', mentions: [] }] } } } })
    slack.channelErrors.set('C0999999999', 'channel_not_found')
    const result = await config(['validate', 'acme/api'])
    expect(result.status).toBe(1)
    expect(result.stdout).toMatch(/^OK {4}mapping +acme\/api +channels C0234567890, C0999999999, 0 mentions$/m)
    expect(result.stdout).toMatch(/^OK {4}slack-channel +acme\/api +C0234567890/m)
    expect(result.stdout).toMatch(/^FAIL {2}slack-channel +acme\/api +C0999999999/m)
  })
})
