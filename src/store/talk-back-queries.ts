import { statements } from './dialect.ts'

/**
 * Talk-back's statements (linked accounts, OAuth flows), written once for both engines like
 * src/store/queries.ts. A refresh claim is one conditional UPDATE: on PostgreSQL a second replica's UPDATE
 * waits for the first's row lock, re-reads the row and finds it claimed (or at a newer generation).
 */
const ROW = 'slack_user = ? AND host = ?'

export const talkBackQueries = statements({
  // A relink replaces the row whole: a new generation, no claim.
  saveLinkedAccount: `INSERT INTO linked_accounts (slack_user, host, login, account_key, key_id, sealed, expires_at, refresh_expires_at, linked_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (slack_user, host) DO UPDATE SET
      login = excluded.login, account_key = excluded.account_key, key_id = excluded.key_id, sealed = excluded.sealed,
      expires_at = excluded.expires_at, refresh_expires_at = excluded.refresh_expires_at, generation = linked_accounts.generation + 1,
      refreshing_by = NULL, refreshing_until = 0, linked_at = excluded.linked_at, updated_at = excluded.updated_at`,
  linkedAccount: `SELECT * FROM linked_accounts WHERE ${ROW}`,
  linkedAccountsOf: 'SELECT * FROM linked_accounts WHERE slack_user = ? ORDER BY host{bytewise}',
  linkedKeyIds: 'SELECT key_id, COUNT(*) AS links FROM linked_accounts GROUP BY key_id ORDER BY key_id{bytewise}',
  refreshEndingBy: 'SELECT * FROM linked_accounts WHERE refresh_expires_at IS NOT NULL AND refresh_expires_at <= ? ORDER BY refresh_expires_at',
  deleteLinkedAccount: `DELETE FROM linked_accounts WHERE ${ROW}`,
  deleteLinkedGeneration: `DELETE FROM linked_accounts WHERE ${ROW} AND generation = ?`,
  claimRefresh: `UPDATE linked_accounts SET refreshing_by = ?, refreshing_until = ? WHERE ${ROW} AND generation = ? AND refreshing_until < ?`,
  completeRefresh: `UPDATE linked_accounts SET key_id = ?, sealed = ?, expires_at = ?, refresh_expires_at = COALESCE(?, refresh_expires_at),
    generation = generation + 1, refreshing_by = NULL, refreshing_until = 0, updated_at = ?
    WHERE ${ROW} AND generation = ? AND refreshing_by = ?`,
  releaseRefresh: `UPDATE linked_accounts SET refreshing_by = NULL, refreshing_until = 0 WHERE ${ROW} AND refreshing_by = ?`,
  // Under the current key, the same tokens: the generation stays (nothing a waiting replica must re-read).
  reseal: `UPDATE linked_accounts SET key_id = ?, sealed = ?, updated_at = ? WHERE ${ROW} AND generation = ? AND key_id = ?`,

  deleteExpiredStates: 'DELETE FROM oauth_states WHERE expires_at <= ?',
  saveState: `INSERT INTO oauth_states (state_hash, host, slack_user, cookie_hash, code_verifier, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  findState: 'SELECT * FROM oauth_states WHERE state_hash = ?',
  // A flow made at /prherald link has no browser yet: the first to open /start binds its cookie.
  bindState: `UPDATE oauth_states SET cookie_hash = ? WHERE state_hash = ? AND host = ? AND cookie_hash = '' AND expires_at > ?`,
  takeState: 'DELETE FROM oauth_states WHERE state_hash = ? AND cookie_hash = ? AND expires_at > ?',
  dropState: 'DELETE FROM oauth_states WHERE state_hash = ?',
})
