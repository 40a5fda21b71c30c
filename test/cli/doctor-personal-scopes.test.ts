import { describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'

/**
 * The personal side's Slack settings through the built prherald-doctor (and prherald-config validate), with
 * the fake Slack reporting the token's scopes in auth.test's x-oauth-scopes header, as Slack does.
 */
const PERSONAL = ['commands', 'im:write', 'im:history', 'users:read', 'usergroups:read']
const SIGNING_SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0'
const t = useDirAndSlack()

function configure(extra: Record<string, unknown>): void {
  writeConfig(t.dir.path, { git_provider: 'github', ...extra, mappings: { acme: { api: { channel: 'C0000000001' } } } })
}
const env = (extra: Env = {}) => testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, ...extra })
const doctor = (extra: Env = {}) => runCliAsync('doctor', ['acme/api'], env(extra), t.dir.path)
/** The slack-scope lines, as `scope: reason`, and each one's fix. */
const scopeWarnings = (stdout: string) => [...stdout.matchAll(/^ *WARN {2}slack-scope +(\S+) +(.*)\n +fix: (.*)$/gm)].map((m) => ({ scope: m[1], reason: m[2], fix: m[3] }))

describe('prherald-doctor and the personal features', () => {
  it('WARNs for each personal scope the token lacks, naming the feature it disables and that the app must be reinstalled; quiet once granted', async () => {
    configure({ notify: { direct_messages: 'opt_in' }, teams: { backend: 'S0BACKEND1' } })
    const lacking = await doctor({ SLACK_SIGNING_SECRET: SIGNING_SECRET })
    expect(lacking.status).toBe(0)
    const warnings = scopeWarnings(lacking.stdout)
    expect(warnings.map((w) => w.scope)).toEqual(PERSONAL)
    expect(warnings.map((w) => w.reason)).toEqual([
      'the token lacks commands, which disables the /prherald command',
      'the token lacks im:write, which disables direct messages',
      'the token lacks im:history, which disables looking up a direct message of unknown outcome before a retry (without it one may arrive twice)',
      'the token lacks users:read, which disables quiet hours in each person\'s Slack time zone (without it everyone gets notify.time_zone)',
      'the token lacks usergroups:read, which disables team review requests reaching the team\'s members',
    ])
    for (const { scope, fix } of warnings) expect(fix).toMatch(new RegExp(`^add the bot scope ${scope} .*reinstall the app \\(a new scope takes effect only once reinstalled\\)`))
    expect(lacking.stdout).toMatch(/^ {2}OK {4}slack-auth /m)
    expect(lacking.stdout).toMatch(/^ {2}OK {4}direct messages +notify\.direct_messages +opt_in; people change it with \/prherald dm on\|off or the home tab$/m)
    expect(lacking.stdout).not.toContain(SIGNING_SECRET)

    t.slack.scopes.push(...PERSONAL)
    const granted = await doctor({ SLACK_SIGNING_SECRET: SIGNING_SECRET })
    expect(granted.status).toBe(0)
    expect(scopeWarnings(granted.stdout)).toEqual([])
    expect(granted.stdout).not.toContain('WARN')
  })

  it('warns only for the features the configuration can use: nothing for direct messages with notify.direct_messages: off', async () => {
    configure({ notify: { direct_messages: 'off' }, teams: { backend: 'S0BACKEND1' } })
    const off = await doctor({ SLACK_SIGNING_SECRET: SIGNING_SECRET })
    // The slash command still lists pull requests, and /prherald mine asks a team's members.
    expect(scopeWarnings(off.stdout).map((w) => w.scope)).toEqual(['commands', 'usergroups:read'])
    expect(off.stdout).toMatch(/^ {2}SKIP {2}direct messages +notify\.direct_messages +off: nobody gets one$/m)

    configure({ notify: { direct_messages: 'off' } })
    expect(scopeWarnings((await doctor()).stdout)).toEqual([])
  })

  it('without the interactive routes, warns for the direct messages of people turned on in users:, never for /prherald', async () => {
    configure({ notify: { direct_messages: 'opt_in' }, users: { alice: { slack: 'U0ALICE001', direct_messages: 'on' } } })
    const result = await doctor()
    expect(result.status).toBe(0)
    expect(scopeWarnings(result.stdout).map((w) => w.scope)).toEqual(['im:write', 'im:history', 'users:read'])
    expect(result.stdout).toMatch(/^ {2}OK {4}direct messages +notify\.direct_messages +opt_in; SLACK_SIGNING_SECRET unset: only users: can turn it on or off$/m)
  })

  it('WARNs when the file sets direct messages to opt_in and nobody can opt in, and then asks for no direct-message scope', async () => {
    const users = { alice: 'U0ALICE001', bob: { slack: 'U0BOB00001', direct_messages: 'off' } }
    configure({ users })
    // Not chosen, only the default: said, not warned about.
    const byDefault = await runCliAsync('doctor', [], env(), t.dir.path)
    expect(byDefault.stdout).toMatch(/^ {2}SKIP {2}direct messages +notify\.direct_messages +opt_in \(the default, not set in the file\): nobody can opt in/m)
    expect(byDefault.stdout).not.toContain('WARN')

    configure({ notify: { direct_messages: 'opt_in' }, users })
    const result = await runCliAsync('doctor', [], env(), t.dir.path)
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^ {2}WARN {2}direct messages +notify\.direct_messages +opt_in, but nobody can opt in: no person in users: has direct_messages: on, and SLACK_SIGNING_SECRET is unset \(no \/prherald, no home tab\)\n {8}fix: set SLACK_SIGNING_SECRET .*or set notify\.direct_messages: off$/m)
    expect(scopeWarnings((await doctor()).stdout)).toEqual([])

    const reachable = await runCliAsync('doctor', [], env({ SLACK_SIGNING_SECRET: SIGNING_SECRET }), t.dir.path)
    expect(reachable.stdout).not.toContain('nobody can opt in')
  })

  it('prherald-config validate prints the same slack-scope WARNs and still passes', async () => {
    configure({ notify: { direct_messages: 'on' } })
    t.slack.scopes.push('im:write', 'users:read')
    const result = await runCliAsync('config', ['validate', '--force'], env(), t.dir.path)
    expect(result.status).toBe(0)
    expect(scopeWarnings(result.stdout).map((w) => w.scope)).toEqual(['im:history'])
  })
})
