import { personalQueries as q } from './personal-queries.ts'
import type { DirectMessageIntent, DirectMessageRecord, DirectMessageStore, IntentStore, PeopleCache, PersonPreference, PreferenceStore } from './store.ts'
import type { Param, StoreDriver } from './store-driver.ts'

/** The personal side of the store (docs/notifications.md); the same statements on SQLite and PostgreSQL. */
type PersonalStore = DirectMessageStore & PreferenceStore & Pick<PeopleCache, 'zoneOf' | 'saveZone'> & Pick<IntentStore, 'setBatch' | 'finishBatch'>

interface DirectMessageRow {
  recipient: string
  dm_key: string
  pr_key: string
  body: string
  due_at: number | string
  created_at: number | string
  batch: string | null
  batch_at: number | string | null
  outcome: string | null
  channel: string | null
  ts: string | null
}

/** A direct message's target as its intent's row keeps it. */
export const targetText = (target: DirectMessageIntent['target']): string => `${target.kind}:${target.id}`

const fromRow = (r: DirectMessageRow): DirectMessageRecord => ({
  recipient: r.recipient, dmKey: r.dm_key, prKey: r.pr_key, body: r.body, dueAt: Number(r.due_at), createdAt: Number(r.created_at),
  batch: r.batch ?? undefined, batchAt: r.batch_at == null ? undefined : Number(r.batch_at),
  outcome: (r.outcome ?? undefined) as DirectMessageRecord['outcome'], channel: r.channel ?? undefined, ts: r.ts ?? undefined,
})

export function createPersonalStore(driver: StoreDriver, now: () => number): PersonalStore {
  const read = <Row>(s: (typeof q)[keyof typeof q], params: readonly Param[]) => driver.read<Row>(s, params)
  const write = async (s: (typeof q)[keyof typeof q], params: readonly Param[]) => (await driver.write([[s, params]]))[0] ?? 0
  const change = async (s: (typeof q)[keyof typeof q], params: readonly Param[]) => { await write(s, params) }
  return {
    async queueDirectMessages(rows) {
      if (rows.length === 0) return 0
      const counts = await driver.write(rows.map((r) => [q.queueDirectMessage, [r.recipient, r.dmKey, r.prKey, r.body, r.dueAt, r.createdAt]]))
      return counts.reduce((a, b) => a + b, 0)
    },
    async directMessageIntents() {
      const rows = await read<{ target: string; dm_key: string; pr_key: string; body: string; actor_user: string | null; created_at: number | string }>(q.intents, [])
      const targetOf = (text: string) => ({ kind: text.startsWith('group:') ? 'group' as const : 'user' as const, id: text.slice(text.indexOf(':') + 1) })
      return rows.map((r) => ({ target: targetOf(r.target), dmKey: r.dm_key, prKey: r.pr_key, body: r.body, actorUser: r.actor_user ?? undefined, createdAt: Number(r.created_at) }))
    },
    async resolveDirectMessageIntent(intent, rows) {
      const counts = await driver.write([
        ...rows.map((r) => [q.queueDirectMessage, [r.recipient, r.dmKey, r.prKey, r.body, r.dueAt, r.createdAt]] as const),
        [q.deleteIntent, [targetText(intent.target), intent.dmKey]],
      ])
      return counts.slice(0, -1).reduce((a, b) => a + b, 0)
    },
    dueRecipients: async (at) => (await read<{ recipient: string }>(q.dueRecipients, [at, at])).map((r) => r.recipient),
    async claimDirectMessages(recipient, owner, at, until) {
      if (await write(q.claimRecipient, [owner, until, recipient, at, at]) === 0) return []
      return (await read<DirectMessageRow>(q.claimedRows, [recipient, owner])).map(fromRow)
    },
    setBatch: (recipient, owner, dmKeys, batch, at) => change(q.setBatch, [batch, at, recipient, owner, JSON.stringify(dmKeys)]),
    finishBatch: (recipient, batch, outcome, channel, ts) => change(q.finishBatch, [outcome, channel, ts, recipient, batch]),
    releaseDirectMessages: (recipient, owner) => change(q.releaseClaim, [recipient, owner]),
    directMessageBatchesLeft: async () => (await read<DirectMessageRow>(q.batchesLeft, [])).map(fromRow),
    directMessagesOf: async (recipient) => (await read<DirectMessageRow>(q.directMessagesOf, [recipient])).map(fromRow),
    async preferenceOf(slackUser) {
      const row = (await read<{ direct_messages: string | null; working_hours: string | null }>(q.preferenceOf, [slackUser]))[0]
      return {
        directMessages: (row?.direct_messages ?? undefined) as PersonPreference['directMessages'],
        workingHours: row?.working_hours ?? undefined,
      }
    },
    savePreference: (slackUser, preference) => change(q.savePreference, [slackUser, preference.directMessages ?? null, preference.workingHours ?? null, now()]),
    setMuted: (slackUser, prKey, muted) => change(muted ? q.mute : q.unmute, muted ? [slackUser, prKey, now()] : [slackUser, prKey]),
    isMuted: async (slackUser, prKey) => (await read(q.isMuted, [slackUser, prKey])).length > 0,
    mutesOf: async (slackUser) => (await read<{ pr_key: string }>(q.mutesOf, [slackUser])).map((r) => r.pr_key),
    async zoneOf(slackUser, at) {
      const row = (await read<{ time_zone: string | null; expires_at: number | string }>(q.zoneOf, [slackUser]))[0]
      return row && Number(row.expires_at) > at ? { timeZone: row.time_zone ?? undefined } : undefined
    },
    saveZone: (slackUser, timeZone, expiresAt) => change(q.saveZone, [slackUser, timeZone ?? null, expiresAt]),
  }
}
