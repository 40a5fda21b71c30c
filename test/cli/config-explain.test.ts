import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let github: FakeGithub
beforeEach(async () => {
  dir = makeTempDir()
  github = await startFakeGithub()
  writeConfig(dir.path, {
    git_provider: 'github',
    follow: [{ channel: 'C0000FOLLOW', authors: ['alice'], only: { into: ['main'] } }],
    mappings: {
      acme: {
        '*': { channel: 'C0000000ACME', ignore: { from: ['dependabot/*'] } },
        monorepo: {
          channel: 'C0000GENERAL',
          only: { into: ['main', 'release/*'] },
          owners: { '@acme/backend': { channel: 'C0000BACKEND', mentions: ['<!subteam^S0BACK>'] }, '@acme/web': { channel: 'C0000000WEB' } },
        },
      },
    },
  })
})
afterEach(async () => {
  await github.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_explain' })
const config = (args: string[]) => runCliAsync('config', args, env(), dir.path)

describe('prherald-config explain', () => {
  it('names each channel with the rule that sent it, and the rules that did not', async () => {
    github.files.set('acme/monorepo@main:.github/CODEOWNERS', '* @acme/everyone\n/services/api/ @acme/backend\n')
    const result = await config(['explain', 'acme/monorepo', '--into', 'main', '--from', 'feature/x', '--author', 'alice', '--files', 'services/api/server.go,README.md'])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    const out = result.stdout
    expect(out).toMatch(/C0000BACKEND\s+owners\."@acme\/backend":\s+owns services\/api\/server\.go \(\.github\/CODEOWNERS\)/)
    expect(out).toMatch(/C0000FOLLOW\s+follow\[0\]:\s+follows alice/)
    expect(out).toMatch(/not sent by:\n\s+owners\."@acme\/web":\s+owns no changed file in \.github\/CODEOWNERS/)
    expect(out).not.toContain('C0000GENERAL ')
  })

  it('says which key of only or ignore keeps a pull request out', async () => {
    const result = await config(['explain', 'acme/monorepo', '--into', 'develop', '--from', 'feature/y', '--author', 'bob'])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('goes to no channel')
    expect(result.stdout).toMatch(/mappings\.acme\.monorepo:\s+its target branch matches no only\.into/)
    expect(result.stdout).toMatch(/follow\[0\]:\s+authors does not name bob/)
    // Requests nothing of GitHub without --pr or --files.
    expect(github.requests).toHaveLength(0)
  })

  it('--pr reads the pull request through the API', async () => {
    github.pulls.set('acme/monorepo#42', {
      number: 42, title: 'Bump lodash', html_url: 'https://github.com/acme/monorepo/pull/42', state: 'open', draft: false, merged: false,
      user: { login: 'dependabot[bot]', type: 'Bot' }, created_at: '2026-12-01T10:00:00Z', updated_at: '2026-12-01T10:00:00Z',
      base: { ref: 'main', sha: 'a'.repeat(40) }, head: { ref: 'dependabot/npm/lodash', sha: 'b'.repeat(40) }, labels: [], requested_reviewers: [], requested_teams: [],
    })
    github.pullFiles.set('acme/monorepo#42', ['package.json'])
    const result = await config(['explain', 'acme/monorepo', '--pr', '42'])
    expect(result.status).toBe(0)
    expect(result.stdout).toContain('into main from dependabot/npm/lodash, author dependabot[bot]')
    expect(result.stdout).toMatch(/mappings\.acme\.monorepo:\s+ignore\.from matches the source branch/)
  })
})

describe('prherald-config list', () => {
  it('shows only, ignore, owners and follow as each entry ends up with them', async () => {
    const result = await config(['list'])
    expect(result.status).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines).toContain('  acme/monorepo: into "main", "release/*"')
    expect(lines).toContain('  acme/monorepo: from "dependabot/*"')
    expect(lines).toContain('  acme/monorepo: @acme/backend→C0000BACKEND <!subteam^S0BACK>; @acme/web→C0000000WEB')
    expect(lines).toContain('  follow[0] → C0000FOLLOW: authors alice; every repository; only into "main"')
  })
})

describe('refusals', () => {
  it('names every bad routing key with its line and the fix, all at once', async () => {
    writeFileSync(join(dir.path, 'config.yaml'), [
      'git_provider: github',
      'follow:',
      '  - channel: C0000FOLLOW',
      'mappings:',
      '  acme:',
      '    api:',
      '      channel: C0000000ACME',
      '      only: { into: ["refs/heads/main"], branch: ["x"] }',
      '      ignore: { from: ["feature branch"] }',
      '      owners:',
      '        acme/web: { channel: C0000000WEB }',
      '        "@acme/backend": { mentions: ["<!here>"] }',
    ].join('\n'))
    const result = await config(['list'])
    expect(result.status).not.toBe(0)
    const err = result.stderr
    expect(err).toMatch(/line 8, mappings\.acme\.api\.only\.branch: unknown key.*allowed here: labels, title, authors, into, from/)
    expect(err).toMatch(/line 8, mappings\.acme\.api\.only\.into\.0: "refs\/heads\/main" is a full ref; write the branch name as the host shows it, e\.g\. main/)
    expect(err).toMatch(/line 9, mappings\.acme\.api\.ignore\.from\.0: "feature branch" cannot match a git branch name/)
    expect(err).toMatch(/line 11, mappings\.acme\.api\.owners\.acme\/web: "acme\/web" lacks its @; write it as CODEOWNERS does: "@acme\/web"/)
    expect(err).toMatch(/mappings\.acme\.api\.owners\.@acme\/backend\.channel: is required/)
    // The follow entry is checked once the schema passes; the schema's problems come first, each with its line.
    expect(err).not.toMatch(/at .*\.ts:\d+/)
  })

  it('refuses a follow entry that follows nobody', async () => {
    writeFileSync(join(dir.path, 'config.yaml'), 'git_provider: github\nfollow:\n  - channel: C0000FOLLOW\nmappings:\n  acme:\n    api: { channel: C0000000ACME }\n')
    const result = await config(['list'])
    expect(result.status).not.toBe(0)
    expect(result.stderr).toMatch(/line \d+, follow\.0: follows nobody; add authors: \[login, …\] or team: <team slug>/)
  })
})
