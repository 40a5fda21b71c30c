import { statements } from './dialect.ts'

/**
 * The personal side's statements (direct messages, preferences, mutes, time zones), written once for both
 * engines like src/store/queries.ts. A claim is one conditional UPDATE: on PostgreSQL a second replica's
 * UPDATE waits for the first's row locks, re-reads the rows and finds them claimed.
 */
const DUE = 'outcome IS NULL AND due_at <= ? AND claimed_until < ?'

const sql = {
  queueDirectMessage: `INSERT INTO direct_messages (recipient, dm_key, pr_key, body, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (recipient, dm_key) DO NOTHING`,
  dueRecipients: `SELECT recipient FROM direct_messages WHERE ${DUE} GROUP BY recipient ORDER BY min(due_at), recipient{bytewise} LIMIT 50`,
  claimRecipient: `UPDATE direct_messages SET claimed_by = ?, claimed_until = ? WHERE recipient = ? AND ${DUE}`,
  claimedRows: `SELECT * FROM direct_messages WHERE recipient = ? AND claimed_by = ? AND outcome IS NULL ORDER BY created_at, dm_key{bytewise}`,
  setBatch: 'UPDATE direct_messages SET batch = ?, batch_at = ? WHERE recipient = ? AND claimed_by = ? AND outcome IS NULL AND dm_key IN ({json_texts})',
  finishBatch: 'UPDATE direct_messages SET outcome = ?, channel = ?, ts = ?, claimed_until = 0 WHERE recipient = ? AND batch = ?',
  releaseClaim: 'UPDATE direct_messages SET claimed_until = 0 WHERE recipient = ? AND claimed_by = ? AND outcome IS NULL',
  queueIntent: `INSERT INTO direct_message_intents (target, dm_key, pr_key, body, actor_user, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (target, dm_key) DO NOTHING`,
  intents: 'SELECT * FROM direct_message_intents ORDER BY created_at, target{bytewise}, dm_key{bytewise} LIMIT 100',
  deleteIntent: 'DELETE FROM direct_message_intents WHERE target = ? AND dm_key = ?',
  batchesLeft: 'SELECT * FROM direct_messages WHERE batch IS NOT NULL AND outcome IS NULL ORDER BY created_at, dm_key{bytewise}',
  directMessagesOf: 'SELECT * FROM direct_messages WHERE recipient = ? ORDER BY created_at, dm_key{bytewise}',

  preferenceOf: 'SELECT * FROM person_preferences WHERE slack_user = ?',
  savePreference: `INSERT INTO person_preferences (slack_user, direct_messages, working_hours, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (slack_user) DO UPDATE SET
      direct_messages = COALESCE(excluded.direct_messages, person_preferences.direct_messages),
      working_hours = COALESCE(excluded.working_hours, person_preferences.working_hours), updated_at = excluded.updated_at`,
  mute: 'INSERT INTO direct_message_mutes (slack_user, pr_key, created_at) VALUES (?, ?, ?) ON CONFLICT (slack_user, pr_key) DO NOTHING',
  unmute: 'DELETE FROM direct_message_mutes WHERE slack_user = ? AND pr_key = ?',
  isMuted: 'SELECT 1 AS muted FROM direct_message_mutes WHERE slack_user = ? AND pr_key = ?',
  mutesOf: 'SELECT pr_key FROM direct_message_mutes WHERE slack_user = ? ORDER BY created_at, pr_key{bytewise}',

  zoneOf: 'SELECT time_zone, expires_at FROM slack_user_zones WHERE slack_user = ?',
  saveZone: `INSERT INTO slack_user_zones (slack_user, time_zone, expires_at) VALUES (?, ?, ?)
    ON CONFLICT (slack_user) DO UPDATE SET time_zone = excluded.time_zone, expires_at = excluded.expires_at`,
} as const

export const personalQueries = statements(sql)
