import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { TEST_SECRET } from '../helpers/signed-delivery.ts'
import { testEnv } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** The commands on a file with two hosts: a section per host, `--provider` for one of them (issue 34). */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeFileSync(join(dir.path, 'config.yaml'), stringify({
    hosts: {
      github: { mappings: { acme: { api: { channel: 'C0000000001' } } }, users: { alice: 'U0ALICE' } },
      gitlab: { mappings: { acme: { api: { channel: 'C0000000002' } } }, users: { 'alice.smith': 'U0ALICE' } },
    },
  }))
})
afterEach(async () => {
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITLAB_WEBHOOK_SECRET: TEST_SECRET })
const run = (command: Parameters<typeof runCliAsync>[0], args: string[]) => runCliAsync(command, args, env(), dir.path)

describe('commands on several hosts', () => {
  it('prherald-config list prints a section per host, each with its entries and people', async () => {
    const list = await run('config', ['list'])
    expect(list.status, list.stderr).toBe(0)
    const github = list.stdout.indexOf('GitHub (hosts.github, route /webhook/github):')
    const gitlab = list.stdout.indexOf('GitLab (hosts.gitlab, route /webhook/gitlab):')
    expect(github).toBeGreaterThanOrEqual(0)
    expect(gitlab).toBeGreaterThan(github)
    expect(list.stdout.slice(github, gitlab)).toMatch(/acme +api +C0000000001/)
    expect(list.stdout.slice(github, gitlab)).toMatch(/^ {2}alice +U0ALICE$/m)
    expect(list.stdout.slice(gitlab)).toMatch(/acme +api +C0000000002/)
    expect(list.stdout.slice(gitlab)).toMatch(/^ {2}alice\.smith +U0ALICE$/m)
  })

  it('prherald-config validate checks each host in a section of its own, or the one --provider names', async () => {
    const all = await run('config', ['validate'])
    expect(all.status, all.stdout + all.stderr).toBe(0)
    expect(all.stdout).toContain('GitHub (hosts.github):')
    expect(all.stdout).toContain('GitLab (hosts.gitlab):')
    expect(all.stdout).toMatch(/C0000000002/)

    const one = await run('config', ['validate', '--provider', 'gitlab', '--force'])
    expect(one.status, one.stdout + one.stderr).toBe(0)
    expect(one.stdout).not.toContain('GitHub')
    expect(one.stdout).toMatch(/slack-channel +acme\/api +C0000000002/)
    expect(one.stdout).not.toContain('C0000000001')

    const unknown = await run('config', ['validate', '--provider', 'bitbucket'])
    expect(unknown.status).not.toBe(0)
    expect(unknown.stderr).toContain('--provider bitbucket is not a configured host')
  })

  it('prherald-doctor prints a section per host and names the hosts in [config]', async () => {
    const doctor = await run('doctor', [])
    expect(doctor.stdout).toMatch(/parses: hosts github, gitlab, 2 mapping entries$/m)
    expect(doctor.stdout).toMatch(/^ {2}OK {4}secret +GITLAB_WEBHOOK_SECRET +set$/m)
    expect(doctor.stdout).toContain('[mappings: GitHub]')
    expect(doctor.stdout).toContain('[mappings: GitLab]')
  })

  it('a one-host command asks for --provider when several hosts are configured', async () => {
    const smoke = await run('smoke', ['--url', 'http://127.0.0.1:9'])
    expect(smoke.status).not.toBe(0)
    expect(smoke.stderr).toContain('the configuration has several hosts (github, gitlab): name one')
    expect(smoke.stderr).toContain('add --provider with one of: github, gitlab')
  })

  it('prherald-reconcile --provider refuses a host the file does not list, naming the ones it does', async () => {
    const result = await run('reconcile', ['--dry-run', '--provider', 'bitbucket'])
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('--provider bitbucket is not a configured host')
    expect(result.stderr).toContain('use one of: github, gitlab')
  })
})
