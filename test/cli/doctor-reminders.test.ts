import { afterEach, expect, it } from 'vitest'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'
import { grantPersonalScopes } from '../helpers/personal-setup.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'

/**
 * notify.reminders through the built prherald-doctor and prherald-server: both say the same of it, a WARN
 * with the fix when no direct message can reach anyone (then nobody is reminded), OK with its spans otherwise.
 */
const t = useDirAndSlack()
let server: SpawnedServer | undefined
afterEach(async () => {
  await killServer(server)
  server = undefined
})

const configure = (directMessages: string) => writeConfig(t.dir.path, {
  git_provider: 'github', server: { log_format: 'json' }, notify: { direct_messages: directMessages, reminders: { after: '4h' } },
  mappings: { acme: { api: { channel: 'C0000000001' } } },
})
const env = () => testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url })

it('doctor and the start agree: a WARN when reminders are on and direct messages reach nobody, OK otherwise', async () => {
  grantPersonalScopes(t.slack)
  configure('off')
  const warned = await runCliAsync('doctor', ['acme/api'], env(), t.dir.path)
  expect(warned.stdout).toMatch(/^ {2}WARN {2}reminders +notify\.reminders +on, but no direct message reaches anyone, so nobody is reminded\n +fix: turn direct messages on for people/m)
  server = await spawnServer(env(), t.dir.path)
  expect(server.entries().filter((e) => e.check === 'reminders').map((e) => [e.msg, e.status])).toEqual([['check warning', 'WARN']])
  await killServer(server)

  configure('on')
  const ok = await runCliAsync('doctor', ['acme/api'], env(), t.dir.path)
  expect(ok.stdout).toMatch(/^ {2}OK {4}reminders +notify\.reminders +after 4h, every 1d, escalate_after 3d of each person's working time$/m)
})
