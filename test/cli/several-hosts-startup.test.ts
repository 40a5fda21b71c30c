import { afterEach, beforeEach, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { deliver, TEST_SECRET } from '../helpers/signed-delivery.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The real prherald-server with GitHub and GitLab configured, GitLab's API unreachable at start: that host's
 * checks are reported for it, and both hosts are served (issue 34, "one process, every configured host").
 */
const GITHUB_TOKEN = 'ghp-several-hosts-31ce'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub
let server: SpawnedServer | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  github = await startFakeGithub()
  github.token = GITHUB_TOKEN
  github.hooks.set('Codertocat/Hello-World', [{
    id: 1, name: 'web', active: true, events: [...GITHUB_REQUIRED_EVENTS], config: { url: 'https://prherald.example.com/webhook/github', content_type: 'json', insecure_ssl: '0' },
  }])
  writeFileSync(join(dir.path, 'config.yaml'), stringify({
    server: { log_format: 'json' },
    hosts: {
      github: { mappings: { Codertocat: { 'Hello-World': { channel: 'C0000000001' } } } },
      gitlab: { mappings: { acme: { api: { channel: 'C0000000002' } } } },
    },
  }))
})
afterEach(async () => {
  if (server) await killServer(server)
  server = undefined
  await slack.close()
  await github.close()
  dir.remove()
})

it('reports the host whose API cannot be reached at start, for that host, and serves every host', async () => {
  const gone = createServer()
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve))
  const goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`
  await new Promise<void>((resolve) => gone.close(() => resolve()))

  server = await spawnServer(testEnv(dir.path, 'github', {
    SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN,
    GITLAB_WEBHOOK_SECRET: TEST_SECRET, GITLAB_TOKEN: 'glpat-several-hosts-9d1e', GITLAB_API_URL: goneUrl,
  }), dir.path)
  expect(server.entries()).toContainEqual(expect.objectContaining({
    level: 'warn', msg: 'could not check: the other side did not answer; starting anyway, the next start checks it again',
    check: 'webhook', host: 'gitlab', target: 'acme/api', reason: expect.stringContaining(`GitLab unreachable at ${goneUrl}`),
  }))
  expect(server.entries()).toContainEqual(expect.objectContaining({
    msg: 'listening', hosts: ['github', 'gitlab'], routes: ['/webhook/github', '/webhook/gitlab'],
  }))
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
  // GitHub's entry checked and locked; GitLab's left for the next start.
  const lock = JSON.parse(readFileSync(join(dir.path, 'config.lock'), 'utf8')) as { version: number; hosts: Record<string, { entries: object }> }
  expect(lock.version).toBe(2)
  expect(Object.keys(lock.hosts.github!.entries)).toEqual(['Codertocat/Hello-World'])
  expect(Object.keys(lock.hosts.gitlab?.entries ?? {})).toEqual([])

  // Both hosts are served.
  expect((await deliver(server.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 3) })).status).toBe(200)
  expect((await deliver(server.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 4 }) })).status).toBe(200)
  await waitFor('both messages', () => slack.messagesIn('C0000000001').length === 1 && slack.messagesIn('C0000000002').length === 1)
  expect(slack.messagesIn('C0000000002')[0]!.text).toContain('MR !4: ')
})
