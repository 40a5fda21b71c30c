import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * prherald-doctor's [routing] section (docs/routing.md), the built CLI against fake hosts answering as their APIs
 * document: `owners` and `follow` channels the bot can post in, each mapped repository's CODEOWNERS read at the
 * default branch through the host, owners it does not name, and what the host cannot do.
 */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub | undefined
let gitlab: FakeGitlab | undefined
let bitbucket: FakeBitbucket | undefined
beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
})
afterEach(async () => {
  await slack.close()
  await github?.close()
  await gitlab?.close()
  await bitbucket?.close()
  github = gitlab = bitbucket = undefined
  dir.remove()
})

/** prherald-doctor, built, with the fake Slack and the host's variables. */
const doctor = (provider: Provider, env: Record<string, string>) => runCliAsync('doctor', [], testEnv(dir.path, provider, { SLACK_API_URL: slack.url, ...env }), dir.path)

/** The [routing] section's lines, each as `STATUS name target…`, spaces folded. */
const routing = (stdout: string) => {
  const start = stdout.indexOf('[routing]')
  expect(start, stdout).toBeGreaterThanOrEqual(0)
  const rest = stdout.slice(start).split('\n').slice(1)
  const end = rest.findIndex((l) => !l.startsWith('  '))
  return rest.slice(0, end).map((l) => l.trim().replace(/\s+/g, ' '))
}

describe('prherald-doctor [routing]', () => {
  it('GitHub: owners and follow channels checked in Slack; CODEOWNERS read at the default branch; an owner it does not name is a WARN; a channel the bot is not in FAILs', async () => {
    github = await startFakeGithub()
    github.token = 'ghp-doctor'
    github.files.set('acme/monorepo@main:.github/CODEOWNERS', '* @acme/everyone\n/services/ @Acme/Backend\n')
    slack.channels.set('C0OPS000001', { name: 'ops', is_member: false })
    writeConfig(dir.path, {
      git_provider: 'github',
      follow: [{ channel: 'C0FOLLOW001', authors: ['alice'] }],
      mappings: { acme: { monorepo: { channel: 'C0GENERAL01', owners: { '@acme/backend': { channel: 'C0BACKEND01' }, '@acme/ops': { channel: 'C0OPS000001' } } } } },
    } as never)
    const result = await doctor('github', { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp-doctor' })
    expect(result.status).toBe(1)
    const lines = routing(result.stdout)
    expect(lines).toContain('OK slack-channel acme/monorepo owners."@acme/backend" C0BACKEND01 (#general) exists, not archived, bot is a member')
    expect(lines).toContain('FAIL slack-channel acme/monorepo owners."@acme/ops" the bot is not a member of C0OPS000001 (#ops)')
    expect(lines).toContain('OK codeowners acme/monorepo .github/CODEOWNERS at the default branch: 2 rules')
    expect(lines).toContain('WARN codeowners acme/monorepo owners."@acme/ops" is named by no line of .github/CODEOWNERS: C0OPS000001 gets nothing from it')
    expect(lines).toContain('OK slack-channel follow[0] C0FOLLOW001 (#general) exists, not archived, bot is a member')

    // "Get repository content" without `ref`: the default branch.
    const read = github.requests.filter((r) => r.path.startsWith('/repos/acme/monorepo/contents/'))
    expect(read.map((r) => [r.path, r.query.get('ref')])).toEqual([['/repos/acme/monorepo/contents/.github%2FCODEOWNERS', null]])
    // A follow channel the bot is not in is a WARN: the start-up checks mapped entries' channels, not follow's.
    slack.channels.set('C0OPS000001', { name: 'ops', is_member: true })
    slack.channels.set('C0FOLLOW001', { name: 'follow', is_member: false })
    const again = await doctor('github', { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp-doctor' })
    expect(again.status).toBe(0)
    expect(routing(again.stdout)).toContain('WARN slack-channel follow[0] the bot is not a member of C0FOLLOW001 (#follow)')
  })

  it('GitLab: CODEOWNERS at HEAD (the default branch); team owners say what GitLab cannot do; a team follow reads the subgroup', async () => {
    gitlab = await startFakeGitlab()
    gitlab.token = 'glpat-doctor'
    gitlab.files.set('acme/api@main:CODEOWNERS', '[Web] @acme/web\n*.vue\n')
    writeConfig(dir.path, {
      git_provider: 'gitlab',
      follow: [{ channel: 'C0FOLLOW001', team: 'web' }],
      mappings: { acme: { api: { channel: 'C0GENERAL01', owners: { '@acme/web': { channel: 'C0WEB000001' } } } } },
    } as never)
    const result = await doctor('gitlab', { GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: 'glpat-doctor' })
    expect(result.status).toBe(0)
    const lines = routing(result.stdout)
    expect(lines).toContain('OK codeowners acme/api CODEOWNERS at the default branch: 1 rule')
    expect(lines).toContain('OK requested-teams acme/api GitLab\'s review requests name people, not teams: owners "@acme/web" get pull requests from CODEOWNERS only')
    // GitLab's teams are the owner's subgroups, whose members prherald reads: the follow is not refused.
    expect(lines.filter((l) => l.startsWith('WARN follow'))).toEqual([])
    expect(gitlab.requests.filter((r) => r.path.includes('/repository/files/')).map((r) => r.query.get('ref'))).toEqual(['HEAD'])
  })

  it('Bitbucket Cloud: the main branch read from the repository, .bitbucket/CODEOWNERS, what it cannot read, a missing file and an owner\'s "*" entry', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { bearer: 'bb-doctor' }
    bitbucket.files.set('acme/api@main:.bitbucket/CODEOWNERS', 'src/ @backend-dev\n')
    bitbucket.repos.set('acme', ['api', 'web'])
    writeConfig(dir.path, {
      git_provider: 'bitbucket',
      follow: [{ channel: 'C0FOLLOW001', team: 'web' }],
      mappings: { acme: {
        '*': { channel: 'C0GENERAL01', owners: { '@backend-dev': { channel: 'C0BACKEND01' } } },
        api: { channel: 'C0GENERAL01' },
        web: { channel: 'C0GENERAL01' },
      } },
    } as never)
    const result = await doctor('bitbucket', { BITBUCKET_API_URL: bitbucket.url, BITBUCKET_TOKEN: 'bb-doctor' })
    expect(result.status).toBe(0)
    const lines = routing(result.stdout)
    expect(lines).toContain('OK codeowners acme/api .bitbucket/CODEOWNERS at the default branch: 1 rule; Bitbucket cannot: a target branch whose name holds a / (release/2.4) cannot be read through its src API: such pull requests go to the entry\'s own channels')
    expect(lines).toContain('WARN codeowners acme/web no CODEOWNERS at the default branch in .bitbucket/CODEOWNERS: owners rules send nothing there')
    expect(lines.some((l) => l.startsWith('SKIP codeowners acme/* each repository\'s CODEOWNERS is read when its pull requests arrive'))).toBe(true)
    expect(bitbucket.requests.filter((r) => r.path === '/2.0/repositories/acme/api')).toHaveLength(1)
    expect(lines).toContain('WARN follow follow[0] Bitbucket has no teams prherald reads: team "web" follows nobody')
  })
})
