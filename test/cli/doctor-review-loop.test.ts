import { describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'

/**
 * The review loop's own channels and scope through the built prherald-doctor and prherald-server: each
 * insights.weekly channel and notify.merged_without_approval's channel is one the bot can post in, and the
 * token has files:write for the weekly chart. What doctor calls FAIL stops the start, with the same reason.
 */
const POSTING = ['chat:write', 'reactions:write', 'channels:read', 'groups:read', 'channels:history', 'groups:history']
const t = useDirAndSlack()

function configure(notify: Record<string, unknown> = {}): void {
  writeConfig(t.dir.path, {
    git_provider: 'github', notify, insights: { enabled: true, weekly: [{ channel: 'C0WEEKLY1', day: 'monday' }, { channel: 'C0WEEKLY2', day: 'friday', at: '16:00' }] },
    mappings: { acme: { api: { channel: 'C0000000001' } } },
  })
}
const env = (extra: Env = {}) => testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, ...extra })
const doctor = () => runCliAsync('doctor', [], env(), t.dir.path)
/** The [review loop] section's lines. */
const section = (stdout: string) => stdout.split('[review loop]\n')[1]?.split(/\n(?=\[)|\n\d+ OK/)[0] ?? ''

describe('prherald-doctor [review loop]', () => {
  it('FAILs a token without files:write, then each channel the bot cannot post in, naming its key and the fix', async () => {
    t.slack.scopes.splice(0, t.slack.scopes.length, ...POSTING)
    configure({ merged_without_approval: 'C0MERGED01' })
    const lacking = await doctor()
    expect(lacking.status).toBe(1)
    expect(section(lacking.stdout)).toMatch(/^ {2}FAIL {2}slack-auth +SLACK_BOT_TOKEN +the token lacks the scope files:write\n +fix: add the bot scope files:write under OAuth & Permissions/m)
    expect(section(lacking.stdout)).toMatch(/SKIP {2}slack-channel +insights\.weekly +C0WEEKLY1 not checked: slack-auth failed/)

    t.slack.scopes.push('files:write')
    t.slack.channels.set('C0WEEKLY2', { is_member: false, name: 'eng-weekly' })
    t.slack.channels.set('C0MERGED01', { is_archived: true, name: 'merges' })
    const channels = await doctor()
    expect(channels.status).toBe(1)
    const lines = section(channels.stdout)
    expect(lines).toMatch(/^ {2}OK {4}slack-auth +SLACK_BOT_TOKEN +auth\.test ok .*files:write/m)
    expect(lines).toMatch(/^ {2}OK {4}slack-channel +insights\.weekly +C0WEEKLY1 \(#general\) exists, not archived, bot is a member$/m)
    expect(lines).toMatch(/^ {2}FAIL {2}slack-channel +insights\.weekly +the bot is not a member of C0WEEKLY2 \(#eng-weekly\)\n +fix: invite the bot: in #eng-weekly, type \/invite @your-bot$/m)
    expect(lines).toMatch(/^ {2}FAIL {2}slack-channel +notify\.merged_without_approval +C0MERGED01 \(#merges\) is archived$/m)
  })

  it('is all OK once the scope is granted and the bot is in every channel; "thread" is no channel to check', async () => {
    t.slack.scopes.push('files:write')
    configure({ merged_without_approval: 'thread' })
    const result = await doctor()
    expect(section(result.stdout).match(/^ {2}\S+/gm)).toEqual(['  OK', '  OK', '  OK'])
    expect(result.stdout).not.toContain('notify.merged_without_approval')
  })

  it('says nothing when the review loop posts nowhere of its own', async () => {
    writeConfig(t.dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000001' } } } })
    expect((await doctor()).stdout).not.toContain('[review loop]')
  })
})

describe('prherald-server and the review loop\'s channels', () => {
  it('does not start when a weekly channel is one the bot cannot post in, or the token lacks files:write; says why and what to do', async () => {
    t.slack.scopes.push('files:write')
    t.slack.channels.set('C0WEEKLY2', { is_member: false, name: 'eng-weekly' })
    configure()
    const result = await runCliAsync('server', [], env(), t.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('configuration check failed, not starting')
    expect(result.stderr).toContain('insights.weekly slack-channel: the bot is not a member of C0WEEKLY2 (#eng-weekly)')
    expect(result.stderr).toContain('fix: invite the bot: in #eng-weekly, type /invite @your-bot')

    t.slack.channels.delete('C0WEEKLY2')
    t.slack.scopes.splice(t.slack.scopes.indexOf('files:write'), 1)
    const noScope = await runCliAsync('server', [], env(), t.dir.path)
    expect(noScope.status).toBe(1)
    expect(noScope.stderr).toContain('the token lacks the scope files:write; not starting')
  })
})
