import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { TEST_SECRET, TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * prherald-smoke end to end: the real service on 127.0.0.1 with a real SQLite file, the fake Slack, and the
 * built CLI run against the service's URL. The message must appear and show the pull request ended, as any
 * pull request's would (the service has no smoke-test case), then be deleted by prherald-smoke itself; each
 * failure mode must FAIL with its fix.
 */
const CHANNEL = 'C0SMOKE001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

async function start(provider: Provider): Promise<TestService> {
  writeConfig(dir.path, { git_provider: provider, mappings: { acme: { api: { channel: CHANNEL, mentions: ['<!here>'] } } } })
  return (service = await startPrherald(dir.path, testEnv(dir.path, provider, { SLACK_API_URL: slack.url })))
}

function smoke(provider: Provider, args: string[], secret = TEST_SECRET) {
  return runCliAsync('smoke', [...args, '--timeout', '10'], {
    PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'),
    SLACK_API_URL: slack.url,
    SLACK_BOT_TOKEN: TEST_SLACK_TOKEN,
    [hostOf(provider).variables.secret]: secret,
  }, dir.path)
}

/** The states of the rows the service keeps: the test pull request's, as any other's (gone after cleanup.message_ttl_days). */
function states(): string[] {
  const db = new Database(join(dir.path, 'prherald.db'), { readonly: true })
  try {
    return (db.prepare('SELECT state FROM slack_messages').all() as Array<{ state: string }>).map((r) => r.state)
  } finally {
    db.close()
  }
}

const posted = () => slack.calls.filter((c) => c.method === 'chat.postMessage')

/** How each host names a pull request's number in a message: GitLab's merge requests are !20, the others' #20. */
const REFERENCE = { github: 'PR #', bitbucket: 'PR #', gitlab: 'MR !' } as const

describe('prherald-smoke against a running prherald', () => {
  it.each(['github', 'bitbucket', 'gitlab'] as const)('%s: the message appears in the mapped channel, shows the pull request closed, and prherald-smoke deletes it', async (provider) => {
    const running = await start(provider)
    const result = await smoke(provider, ['--url', running.url])
    expect(result.stderr).toBe('')
    expect(result.stdout).toMatch(/^OK\s+reach\s/m)
    expect(result.stdout).toMatch(/^OK\s+deliver opened\s+acme\/api\s/m)
    expect(result.stdout).toMatch(/^OK\s+message\s+C0SMOKE001\s+"prherald smoke test [0-9a-f]{8}" appeared/m)
    expect(result.stdout).toMatch(/^OK\s+cleanup\s+C0SMOKE001\s+prherald-smoke deleted the test message/m)
    expect(result.status).toBe(0)

    // Posted once, in the mapped channel, under a number of the run's own; updated to closed; deleted by the CLI.
    expect(posted()).toHaveLength(1)
    expect(posted()[0]!.body.channel).toBe(CHANNEL)
    expect(String(posted()[0]!.body.text)).toContain(`${REFERENCE[provider]}20`)
    expect(String(posted()[0]!.body.text)).toMatch(/\d{10}: prherald smoke test [0-9a-f]{8}/)
    expect(slack.calls.filter((c) => c.method === 'chat.update').map((c) => String(c.body.text))).toEqual([expect.stringMatching(/ — Closed$/)])
    expect(slack.count('chat.delete')).toBe(1)
    expect(slack.messagesIn(CHANNEL)).toEqual([])
    expect(await running.settle(5000)).toBe(true)
    expect(states()).toEqual(['closed'])
  })

  it('--reactions drives an approval and a merge and sees their reactions before cleaning up', async () => {
    const running = await start('github')
    const result = await smoke('github', ['--url', running.url, '--reactions'])
    expect(result.stdout).toMatch(/^OK\s+reaction approved\s+C0SMOKE001\s+:white_check_mark: added/m)
    expect(result.stdout).toMatch(/^OK\s+reaction merged\s+C0SMOKE001\s+:twisted_rightwards_arrows: added/m)
    expect(result.stdout).toMatch(/^OK\s+cleanup\s/m)
    expect(result.status).toBe(0)
    expect(slack.messagesIn(CHANNEL)).toEqual([])
    expect(await running.settle(5000)).toBe(true)
    expect(states()).toEqual(['merged'])
  })

  it('two runs in a row each announce a pull request of their own', async () => {
    const running = await start('github')
    for (const run of [1, 2]) expect((await smoke('github', ['--url', running.url])).status, `run ${run}`).toBe(0)
    expect(new Set(posted().map((c) => String(c.body.text).split(':')[0])).size).toBe(2)
    expect(slack.messagesIn(CHANNEL)).toEqual([])
    expect(await running.settle(5000)).toBe(true)
    expect(states()).toEqual(['closed', 'closed'])
  })

  it('a wrong webhook secret FAILs at the first delivery with the fix, and nothing reaches Slack', async () => {
    const running = await start('github')
    const result = await smoke('github', ['--url', running.url], 'not-the-server-secret')
    expect(result.status).toBe(1)
    expect(result.stdout).toMatch(/^FAIL\s+deliver opened\s+acme\/api\s+the service refused the signature \(401\): wrong webhook secret/m)
    expect(result.stdout).toContain("fix: prherald-smoke signs with GITHUB_WEBHOOK_SECRET from its environment or .env; give it the server's value")
    expect(posted()).toHaveLength(0)
  })

  it('a bot that is not in the channel FAILs with the /invite fix, and the pull request ends unannounced', async () => {
    slack.channelErrors.set(CHANNEL, 'not_in_channel')
    const running = await start('github')
    const result = await smoke('github', ['--url', running.url])
    expect(result.status).toBe(1)
    expect(result.stdout).toMatch(/^FAIL\s+message\s+C0SMOKE001\s+conversations.history in C0SMOKE001 answered not_in_channel/m)
    expect(result.stdout).toContain('fix: the bot is not in the channel, so the server cannot post there either: in Slack, open the channel and type /invite @your-bot')
    expect(await running.settle(5000)).toBe(true)
    expect(states()).toEqual(['ended'])
  })

  it('a server that is down FAILs at reach with the fix naming the server and the tunnel', async () => {
    const running = await start('github')
    const url = running.url
    await running.stop()
    service = undefined
    const result = await smoke('github', ['--url', url])
    expect(result.status).toBe(1)
    expect(result.stdout).toMatch(new RegExp(`^FAIL\\s+reach\\s+${url.replace(/[.]/g, '\\.')}/healthz\\s+nothing answers at .*ECONNREFUSED`, 'm'))
    expect(result.stdout).toContain('fix: start prherald-server; if the URL is a tunnel or a proxy, check that it runs and forwards')
    expect(result.stdout).not.toMatch(/deliver/)
  })

  it('a tunnel whose server is gone (502) FAILs with the same fix', async () => {
    // A stand-in for the tunnel: answers every request with 502, as a tunnel does when nothing listens behind it.
    const tunnel = await startFakeSlack()
    tunnel.faults.push({ method: 'healthz', fault: { status: 502 } })
    const url = tunnel.url.replace(/\/api\/$/, '')
    try {
      writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: CHANNEL } } } })
      const result = await smoke('github', ['--url', url])
      expect(result.status).toBe(1)
      expect(result.stdout).toMatch(/^FAIL\s+reach\s.*answered 502: a tunnel or proxy answered, not prherald/m)
    } finally {
      await tunnel.close()
    }
  })
})
