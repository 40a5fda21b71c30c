import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { assignCheck } from '../../src/checks/assign-check.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'

/** doctor's assign check against the fake GitHub: the team found (and the note on GitHub's own assignment), missing, or no token. */
const github = hostOf('github')
const mappings = { acme: { api: { channel: 'C0API00001', assign: { team: 'backend' } }, web: { channel: 'C0WEB00001', assign: { team: 'ghosts' } } } }
let fake: FakeGithub
beforeEach(async () => {
  fake = await startFakeGithub()
  fake.teamMembers.set('acme/backend', ['dave', 'erin'])
})
afterEach(() => fake.close())

describe('assign check', () => {
  it('says how many members the team has, and how prherald lives beside GitHub\'s own team assignment', async () => {
    const api = github.connect({ token: 'ghp_x', extra: {}, scheme: undefined }, fake.url)
    const result = await assignCheck({ host: github, api, teams: { backend: 'S0BACKEND1' } }, resolveRoute(mappings, 'acme', 'api')!, 'acme/api')
    expect(result).toMatchObject({ name: 'assign', status: 'OK' })
    expect(result!.reason).toContain('GitHub team acme/backend: 2 members, 1 by round_robin, skipping people away')
    expect(result!.reason).toContain('members it asked before prherald decides count towards count; if it is on, keep one of the two')
  })

  it('warns when the team does not exist, naming the fix; and without a token', async () => {
    const api = github.connect({ token: 'ghp_x', extra: {}, scheme: undefined }, fake.url)
    const missing = await assignCheck({ host: github, api, teams: {} }, resolveRoute(mappings, 'acme', 'web')!, 'acme/web')
    expect(missing).toMatchObject({ status: 'WARN', reason: 'GitHub has no team ghosts in acme (or GITHUB_TOKEN cannot see it)' })
    expect(missing!.fix).toContain('assign.team')
    const tokenless = await assignCheck({ host: github, api: undefined, teams: {} }, resolveRoute(mappings, 'acme', 'api')!, 'acme/api')
    expect(tokenless).toMatchObject({ status: 'WARN', reason: 'GITHUB_TOKEN is not set: reviewers of backend cannot be requested' })
  })
})
