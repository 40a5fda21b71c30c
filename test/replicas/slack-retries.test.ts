import { beforeEach, expect, it } from 'vitest'
import { pullRequest } from '../helpers/github-payloads.ts'
import { useReplicaSet } from '../helpers/replica-set.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { clickPayload, sendInteraction } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { killServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Issue 31.4: Slack retries a request it got no answer to in time, and its retry can reach another replica,
 * or the same one after a restart. Two real prherald-server processes on one PostgreSQL database: the same
 * command (trigger_id), event (event_id) and click (trigger_id) sent to one replica, to the other, and to a
 * restarted one are acted on once.
 */
const DAVE = 'U0DAVE'
const CHANNEL = 'C0000000001'
const set = useReplicaSet({ backend: 'postgres' })

beforeEach(() => {
  set().slack.users.set(DAVE, { tz: 'UTC' })
  writeConfig(set().dir.path, {
    git_provider: 'github', server: { log_format: 'json', log_level: 'debug' }, users: { dave: DAVE, Codertocat: 'U0AUTHOR' },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
})

const spawn = () => set().spawn(set().env('github'))
const responseUrl = () => `${new URL(set().slack.url).origin}/commands/T0ACME/1/answer`
const answers = () => set().slack.calls.filter((c) => c.method === 'commands/T0ACME/1/answer').length
const reviewing = () => JSON.stringify([...set().slack.messages.values()][0]?.blocks ?? []).includes(`:eyes: <@${DAVE}> reviewing`)

it('a command, an event and a click retried to the other replica and after a restart are each acted on once', async () => {
  const { slack, replicas } = set()
  const [a, b] = [await spawn(), await spawn()]
  expect((await deliver(a.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 9) })).status).toBe(200)
  await waitFor('the message', () => slack.messages.size === 1)
  const message = [...slack.messages.values()][0]!

  const command = commandForm(DAVE, 'mine', { trigger_id: 'trigger-command-1', response_url: responseUrl() })
  const event = homeOpened(DAVE, 'Ev-retried')
  const click = clickPayload({ user: DAVE, value: 'github:Codertocat/Hello-World#9', channel: message.channel, messageTs: message.ts })
  /** Sends the three; resolves to the command's answer (its ack when acted on, `{}` when taken already). */
  const sendAll = async (replica: SpawnedServer): Promise<unknown> => {
    const commanded = await sendSignedSlack(replica.url, '/webhook/slack/commands', command)
    expect(commanded.status).toBe(200)
    expect((await sendSignedSlack(replica.url, '/webhook/slack/events', event, { headers: { 'x-slack-retry-num': '1' } })).status).toBe(200)
    expect((await sendInteraction(replica.url, click)).status).toBe(200)
    return commanded.json()
  }
  expect(await sendAll(a)).toMatchObject({ response_type: 'ephemeral' })
  await waitFor('the answer, the home tab and the marker', () => answers() === 1 && slack.count('views.publish') === 1 && reviewing())
  expect(await sendAll(b)).toEqual({})

  await killServer(a)
  const restarted = await spawn()
  expect(await sendAll(restarted)).toEqual({})
  // Each was decided before its answer: the command not run (no ack) and no publish started (its debug line
  // comes before anything is awaited), so an answer and a publish are one call each.
  expect([b, restarted].flatMap((r) => r.entries()).filter((e) => e.msg === 'home tab publish started')).toEqual([])
  expect(answers()).toBe(1)
  expect(slack.count('views.publish')).toBe(1)
  // A second click by the same person takes the marker back: still shown, so the click was applied once.
  expect(reviewing()).toBe(true)
  const taken = [...replicas.slice(1).flatMap((r) => r.entries())].filter((e) => e.reason === 'already_taken')
  expect(taken.map((e) => e.msg).sort()).toEqual([
    'ignored slack command', 'ignored slack command', 'ignored slack event', 'ignored slack event', 'ignored slack interaction', 'ignored slack interaction',
  ])
})
