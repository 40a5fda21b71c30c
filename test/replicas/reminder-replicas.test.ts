import pg from 'pg'
import { expect, it } from 'vitest'
import { pullRequest } from '../helpers/github-payloads.ts'
import { grantPersonalScopes } from '../helpers/personal-setup.ts'
import { useReplicaSet } from '../helpers/replica-set.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { killServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * A reminder happens once with two real prherald-server processes on one PostgreSQL database and a SIGKILL in
 * the middle: both run the reminder round at the same moment; the direct message is queued once, and the
 * thread line, whose post the fake Slack carries out but never answers, is made once: the replica posting it
 * is killed, and the other, which waited for the pull request's lock, finds the line in the thread and adopts it.
 */
const set = useReplicaSet({ backend: 'postgres' })
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const DAY_MS = 24 * 3600_000

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

const logged = (server: SpawnedServer, msg: string) => server.entries().some((e) => e.msg === msg)

it('the reminder and the thread line once, with two replicas and the one posting SIGKILLed', async () => {
  const { dir, slack, database } = set()
  grantPersonalScopes(slack)
  slack.users.set(DAVE, { tz: 'UTC' })
  writeConfig(dir.path, {
    git_provider: 'github', server: { log_format: 'json', log_level: 'debug' },
    notify: { direct_messages: 'on', reminders: { after: '1d', every: '1d', escalate_after: '3d' } },
    users: { dave: { slack: DAVE, working_hours: '00:00-24:00' } }, mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
  })
  const env = set().env('github')
  const payload = pullRequest('opened', 9)
  payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]

  // One replica announces the pull request; the next start's round sees dave holding it.
  const first = await set().spawn(env)
  expect((await deliver(first.url, 'github', { event: 'pull_request', payload })).status).toBe(200)
  await waitFor('the message', () => slack.messagesIn(CHANNEL).length === 1)
  await waitFor('the delivery applied', async () => (await query(database.url, 'SELECT 1 FROM deliveries WHERE applied_at IS NULL')).length === 0)
  await killServer(first)
  const second = await set().spawn(env)
  await waitFor('the hold', async () => (await query(database.url, 'SELECT 1 FROM reminder_holds')).length === 1, 20_000)
  await killServer(second)
  // The hold began a month ago: its first reminder and its thread line are both due at the next round.
  await query(database.url, `UPDATE reminder_holds SET since = since - ${30 * DAY_MS}`)
  const [message] = slack.messagesIn(CHANNEL)
  // The thread line's post is carried out and its answer never comes.
  slack.faults.push({ method: 'chat.postMessage', channel: CHANNEL, fault: { answerAfter: new Promise(() => {}) } })

  // The first replica's round takes the pull request's lock to post the line; the second, started beside it,
  // waits for that lock (its round, or its start-up recovery of the line's intent) until the first is killed.
  const a = await set().spawn(env)
  const starting = set().spawn(env)
  const line = () => slack.repliesTo(CHANNEL, message!.ts).filter((r) => r.text.includes('has waited'))
  await waitFor('the thread line', () => line().length === 1, 20_000)
  const telling = 'reminder: telling the thread who holds the pull request'
  await waitFor('the replica posting it', () => logged(a, telling) || set().replicas.slice(1).some((r) => logged(r, telling)))
  expect(logged(a, telling)).toBe(true)
  await killServer(a)
  const b = await starting

  // The other replica takes the lock, finds the line in the thread and adopts it: nothing is posted again.
  await waitFor('the line adopted', () => logged(b, 'slack thread reply found in the thread; adopting it instead of replying again')
    || logged(b, 'slack thread reply of an interrupted write found; adopting it'), 20_000)
  await waitFor('the hold marked told', async () => (await query(database.url, 'SELECT 1 FROM reminder_holds WHERE escalated_at IS NOT NULL')).length === 1)
  expect(line().map((r) => r.text)).toEqual([expect.stringMatching(new RegExp(`^:hourglass_flowing_sand: This pull request has waited \\d+ working days for a review by <@${DAVE}>\\.$`))])

  // The reminder: one row, counted once, whichever replica queued it.
  const rows = await query<{ due_at: string }>(database.url, "SELECT due_at FROM direct_messages WHERE dm_key LIKE 'reminder:%'")
  expect(rows).toHaveLength(1)
  expect((await query<{ reminders: number }>(database.url, 'SELECT reminders FROM reminder_holds'))[0]!.reminders).toBe(1)
  // Sent within dave's working hours, all of a weekday (a run on a weekend holds it for Monday): then once.
  if (Number(rows[0]!.due_at) <= Date.now()) {
    const reminders = () => slack.messagesIn(`D${DAVE.slice(1)}`).filter((m) => m.text.includes('has waited'))
    await waitFor('the reminder', async () => (await query(database.url, "SELECT 1 FROM direct_messages WHERE dm_key LIKE 'reminder:%' AND outcome = 'sent'")).length === 1, 80_000)
    expect(reminders()).toHaveLength(1)
  }
}, 90_000)
