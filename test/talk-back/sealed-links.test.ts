import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { ACCOUNTS, linkInSqlite, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { REPLY_HOSTS, replyConfig } from '../helpers/thread-reply-events.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Links sealed under a key the server was not given (PRHERALD_TOKEN_KEY changed without _PREVIOUS): the start
 * warns with their count, /readyz is degraded naming it, and prherald-doctor prints the same count and fix,
 * from the one judgement (sealed-links.ts), so start-up and doctor agree.
 */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let fake: FakeOAuthHost
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  fake = await startFakeOAuthHost('github', { accounts: ACCOUNTS })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  await fake.close()
  dir.remove()
})

it('a link sealed under another key: the start warns with the count, /readyz names it, doctor WARNs the same count and fix', async () => {
  writeConfig(dir.path, replyConfig('github', 'linked'))
  await linkInSqlite(dir.path, { fake, key: newTokenKey(), accountKey: REPLY_HOSTS.github.aliceKey })
  const env = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { key: newTokenKey() }) })
  service = await startPrherald(dir.path, env)
  const warned = service.entries().find((e) => e.msg === '1 linked account cannot be opened with the configured token keys; those people are taken as not linked')
  expect(warned).toMatchObject({ links: 1 })
  const ready = await (await fetch(`${service.url}/readyz`)).json() as Record<string, unknown>
  expect(ready).toMatchObject({ status: 'degraded', sealed_links: 1, sealed_links_fix: warned!.fix })
  expect(String(warned!.fix)).toMatch(/^set PRHERALD_TOKEN_KEY_PREVIOUS to the key they were sealed with \(key ids \S+\), or have them link again with \/prherald link$/)
  await service.stop()
  service = undefined

  const doctor = await runCliAsync('doctor', [], env, dir.path)
  const lines = doctor.stdout.split('\n').map((l) => l.trim().replace(/ {2,}/g, '  '))
  const at = lines.indexOf('WARN  sealed links  PRHERALD_TOKEN_KEY  1 linked account cannot be opened with the configured token keys; those people are taken as not linked')
  expect(at).toBeGreaterThan(-1)
  expect(lines[at + 1]).toBe(`fix: ${String(warned!.fix)}`)
})

it('every link opens under the configured key: neither warns, /readyz is not degraded by it', async () => {
  writeConfig(dir.path, replyConfig('github', 'linked'))
  const key = newTokenKey()
  await linkInSqlite(dir.path, { fake, key, accountKey: REPLY_HOSTS.github.aliceKey })
  const env = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { key }) })
  service = await startPrherald(dir.path, env)
  const ready = await (await fetch(`${service.url}/readyz`)).json() as Record<string, unknown>
  expect(ready.sealed_links).toBeUndefined()
  await service.stop()
  service = undefined
  expect((await runCliAsync('doctor', [], env, dir.path)).stdout).not.toContain('sealed links')
})
