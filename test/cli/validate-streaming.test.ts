import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ServerResponse } from 'node:http'
import { sendJson, startHttpFake, type HttpFake } from '../helpers/http-fake.ts'
import { spawnCli, type RunningCli } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * `prherald-config validate` prints each check as it completes and asks Slack about independent channels
 * at the same time. The Slack here holds every conversations.info answer until the test releases it, so
 * what the command printed while answers were outstanding is observed directly, without any clock.
 */
const CHANNELS = { a: 'C0000000001', b: 'C0000000002', c: 'C0000000003' } as const

let dir: ReturnType<typeof makeTempDir>
let slack: HttpFake
let cli: RunningCli | undefined
const held = new Map<string, ServerResponse>()
let onHeld: () => void = () => {}

beforeEach(async () => {
  dir = makeTempDir()
  writeConfig(dir.path, {
    git_provider: 'github',
    mappings: { acme: Object.fromEntries(Object.entries(CHANNELS).map(([repo, channel]) => [repo, { channel }])) },
  })
  slack = await startHttpFake((req, res) => {
    if (req.path.endsWith('/auth.test')) {
      sendJson(res, 200, { ok: true, user_id: 'U0BOT', team: 'acme' }, { 'x-oauth-scopes': 'chat:write,reactions:write,channels:read,groups:read,channels:history,groups:history' })
      return
    }
    held.set(String(req.body.channel), res)
    onHeld()
  })
})
afterEach(async () => {
  if (cli && cli.child.exitCode === null) {
    cli.child.kill('SIGKILL')
    await cli.exited
  }
  cli = undefined
  held.clear()
  await slack.close()
  dir.remove()
})

function release(channel: string): void {
  held.get(channel)?.end(JSON.stringify({ ok: true, channel: { id: channel, name: `ch-${channel}`, is_archived: false, is_member: true } }))
  held.delete(channel)
}

const heldCount = (n: number) => new Promise<void>((resolve) => {
  onHeld = () => held.size >= n && resolve()
  onHeld()
})

/** Resolves once the command has printed a line matching `pattern` (driven by its output, not a timer). */
function printed(running: RunningCli, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (pattern.test(running.output())) {
        running.child.stdout?.off('data', check)
        resolve()
      }
    }
    running.child.stdout?.on('data', check)
    check()
  })
}

describe('prherald-config validate, with a slow Slack', () => {
  it('asks about the three channels at once and prints each line as its answer arrives', async () => {
    cli = spawnCli('config', ['validate'], testEnv(dir.path, 'github', { SLACK_API_URL: `${slack.url}/api/` }), dir.path)
    // All three conversations.info calls are outstanding together: the checks run concurrently.
    await heldCount(3)
    await printed(cli, /^OK +slack-auth /m)
    await printed(cli, /^OK +mapping +acme\/c /m)
    const early = cli.output()
    expect(early).toMatch(/^OK +mapping +acme\/a +channel C0000000001/m)
    expect(early).toMatch(/^SKIP +webhook +acme\/b +GITHUB_TOKEN is not set/m)
    expect(early).not.toMatch(/slack-channel/)
    expect(early).not.toMatch(/entries checked/)

    release(CHANNELS.b)
    await printed(cli, /^OK +slack-channel +acme\/b +C0000000002 \(#ch-C0000000002\)/m)
    expect(cli.output()).not.toMatch(/slack-channel +acme\/(a|c)/)
    expect(cli.output()).not.toMatch(/entries checked/)

    release(CHANNELS.a)
    release(CHANNELS.c)
    expect(await cli.exited).toBe(0)
    const lines = cli.output().trimEnd().split('\n')
    expect(lines.at(-1)).toMatch(/^3 of 3 entries checked: 7 OK, 3 SKIP, 0 FAIL; config\.lock written/)
    expect(lines.filter((l) => /^OK +slack-channel/.test(l))).toHaveLength(3)
  })
})
