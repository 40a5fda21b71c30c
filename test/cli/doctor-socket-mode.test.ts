import { expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { spawnServer } from '../helpers/spawn-prherald.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'

/** slack.socket_mode's token through the built prherald-doctor and prherald-config list, Slack faked. */
const t = useDirAndSlack()
const APP_TOKEN = 'xapp-1-A0PRHERALD-1-0123456789abcdef'

function configure(slack: Record<string, unknown>): void {
  writeConfig(t.dir.path, { git_provider: 'github', slack, mappings: { acme: { api: { channel: 'C0000000001' } } } })
}
const env = (extra: Env = {}) => testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url, ...extra })
const appTokenLine = (stdout: string) => /^\[slack\]\n {2}(\w+) +app-token +SLACK_APP_TOKEN +(.*)$/m.exec(stdout)?.slice(1, 3)

it('doctor checks the app token in [slack]: present, an app-level token and not the bot token, accepted by Slack', async () => {
  configure({ socket_mode: true })
  const unset = await runCliAsync('doctor', [], env(), t.dir.path)
  expect(appTokenLine(unset.stdout)).toEqual(['FAIL', 'slack.socket_mode is true but SLACK_APP_TOKEN is not set'])
  expect(unset.status).toBe(1)

  const bot = await runCliAsync('doctor', [], env({ SLACK_APP_TOKEN: 'xoxb-123-456-abc' }), t.dir.path)
  expect(appTokenLine(bot.stdout)).toEqual(['FAIL', 'SLACK_APP_TOKEN is a bot token (xoxb-…)'])

  const good = await runCliAsync('doctor', [], env({ SLACK_APP_TOKEN: APP_TOKEN }), t.dir.path)
  expect(appTokenLine(good.stdout)).toEqual(['OK', 'accepted by Slack: apps.connections.open gave a socket URL'])
  expect(good.status).toBe(0)
  expect(good.stdout).toMatch(/^ {2}OK {4}button +slack\.socket_mode +true: Start review button on; its clicks come over Socket Mode/m)
  expect(good.stdout).not.toContain(APP_TOKEN)
  expect(t.slack.calls.filter((c) => c.method === 'apps.connections.open').map((c) => c.headers.authorization)).toEqual([`Bearer ${APP_TOKEN}`])

  configure({})
  expect((await runCliAsync('doctor', [], env({ SLACK_APP_TOKEN: APP_TOKEN }), t.dir.path)).stdout).not.toContain('[slack]')
})

it('prherald-config list shows slack.socket_mode, and a value that is not a boolean is refused naming the key', async () => {
  configure({ socket_mode: true })
  expect((await runCliAsync('config', ['list'], env(), t.dir.path)).stdout).toMatch(/^slack\.socket_mode: true \(Slack's requests over Socket Mode's WebSocket/m)
  configure({})
  expect((await runCliAsync('config', ['list'], env(), t.dir.path)).stdout).toMatch(/^slack\.socket_mode: false /m)
  configure({ socket_mode: 'yes' })
  const bad = await runCliAsync('config', ['list'], env(), t.dir.path)
  expect(bad.status).not.toBe(0)
  expect(bad.stderr + bad.stdout).toContain('slack.socket_mode')
})

it('the server refuses to start with slack.socket_mode: true and a bot token as SLACK_APP_TOKEN, naming the mistake', async () => {
  configure({ socket_mode: true })
  const started = spawnServer(env({ SLACK_APP_TOKEN: 'xoxb-123-456-abc' }), t.dir.path)
  await expect(started).rejects.toThrow(/SLACK_APP_TOKEN is a bot token \(xoxb-…\)/)
})
