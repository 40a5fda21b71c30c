import { deleteSlice, statements } from './dialect.ts'

/**
 * Every statement both stores run, each written once (`?` parameters, `{word}` from src/store/dialect.ts
 * where the engines differ). SQLite prepares each once; pg sends its text. PostgreSQL-only coordination
 * (advisory locks, leases, the shared pacing budget) stays in the files that need it.
 */
const MESSAGE_KEY = 'provider = ? AND repository = ? AND pr_number = ? AND channel = ?'
const REPLY_KEY = `${MESSAGE_KEY} AND reply_key = ?`
// Parked deliveries (migration 0012) are pending but neither replayed nor swept until replay-parked.
const PENDING = 'SELECT seq, provider, delivery_id, pr_key, event, received_at FROM deliveries WHERE applied_at IS NULL AND parked_at IS NULL'

const sql = {
  // Unordered: the store sorts the few rows itself (SQLite's sorter cost more than the lookup, src/store/create-store.ts).
  findMessages: 'SELECT * FROM slack_messages WHERE provider = ? AND repository = ? AND pr_number = ?',
  // The repository is bound twice: once to test for "every repository" (NULL), once to compare.
  // In no order and not grouped (openPullRequests in create-store.ts does both): asked to group or sort by the
  // primary key's columns, SQLite (no statistics) reads every message of the host through the primary key
  // instead of the open ones through slack_messages_state (a second, against 33 ms, on 200,000 pull requests).
  openPullRequests: `SELECT provider, repository, pr_number FROM slack_messages
    WHERE provider = ? AND state IN ('open', 'draft') AND (CAST(? AS TEXT) IS NULL OR repository = ?) AND touched_at >= ?`,
  // created_at and touched_at are both bound to the commit's time: the first only counts for a new row.
  saveMessage: `
    INSERT INTO slack_messages (provider, repository, pr_number, channel, ts, mentions, state, lifecycle, last_delivery_id, reactions, created_at, touched_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, pr_number, channel) DO UPDATE SET
      ts = excluded.ts, mentions = excluded.mentions, state = excluded.state, lifecycle = excluded.lifecycle,
      last_delivery_id = excluded.last_delivery_id, reactions = excluded.reactions, touched_at = excluded.touched_at`,
  // The daily cleanup's deletes take the cutoff and a slice's size (src/store/dialect.ts deleteSlice).
  deleteMessagesUntouchedSince: deleteSlice('slack_messages', 'touched_at < ?'),
  countMessages: 'SELECT count(*) AS n FROM slack_messages',
  // A row without activity_at (written before it existed) gives its created_at.
  openMessages: `SELECT provider, repository, pr_number, channel, mentions, lifecycle, COALESCE(activity_at, created_at) AS activity_at
    FROM slack_messages WHERE state = 'open' AND ts <> '' ORDER BY channel{bytewise}, created_at, repository{bytewise}, pr_number`,
  markActivity: `UPDATE slack_messages SET activity_at = ? WHERE provider = ? AND repository = ? AND pr_number = ? AND ts <> ''`,

  // The people of an open pull request (migration 0051), rewritten with its message rows: /prherald mine and
  // the Home tab read a person's open messages through them, not every open message.
  deletePeopleOf: 'DELETE FROM pull_request_people WHERE provider = ? AND repository = ? AND pr_number = ?',
  savePerson: `INSERT INTO pull_request_people (provider, repository, pr_number, person, touched_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, pr_number, person) DO UPDATE SET touched_at = excluded.touched_at`,
  // A person's keys on one host (a JSON list): the open messages of the pull requests they concern.
  // In no order: the lists built from them sort them. Written as a row-value IN so that both engines start
  // from the person's rows (pull_request_people_person) and fetch each message by its key: as a join, SQLite
  // does not know how few keys the JSON list holds and reads every message of the host instead (500 ms on
  // 200,000 pull requests, 0.5 ms this way; docs/performance.md "A year of history").
  openMessagesOfPeople: `SELECT m.provider, m.repository, m.pr_number, m.channel, m.mentions, m.lifecycle, COALESCE(m.activity_at, m.created_at) AS activity_at
    FROM slack_messages m WHERE (m.provider, m.repository, m.pr_number) IN (
      SELECT p.provider, p.repository, p.pr_number FROM pull_request_people p WHERE p.provider = ? AND p.person IN ({json_texts}))
    AND m.state = 'open' AND m.ts <> ''`,
  // At start-up: open messages written before the people were kept (a database from an earlier version).
  openMessagesWithoutPeople: `SELECT m.provider, m.repository, m.pr_number, m.channel, m.mentions, m.lifecycle, COALESCE(m.activity_at, m.created_at) AS activity_at
    FROM slack_messages m WHERE m.state = 'open' AND m.ts <> '' AND NOT EXISTS (
      SELECT 1 FROM pull_request_people p WHERE p.provider = m.provider AND p.repository = m.repository AND p.pr_number = m.pr_number)`,
  deletePeopleUntouchedSince: deleteSlice('pull_request_people', 'touched_at < ?'),

  // Across replicas too: the unique key makes a concurrent second insert wait for the first and then do nothing.
  recordDelivery: `INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, delivery_id) DO NOTHING`,
  // A delivery with its body's digest: the body's first delivery id is claimed, then the delivery is recorded
  // unless that body came first under another id (a replay). In one transaction, and across replicas too.
  recordBody: `INSERT INTO delivery_bodies (provider, body_digest, delivery_id, received_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (provider, body_digest) DO NOTHING`,
  recordDeliveryOfBody: `INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS {millis})
    WHERE NOT EXISTS (SELECT 1 FROM delivery_bodies WHERE provider = ? AND body_digest = ? AND delivery_id <> ?)
    ON CONFLICT (provider, delivery_id) DO NOTHING`,
  firstDeliveryOfBody: 'SELECT delivery_id FROM delivery_bodies WHERE provider = ? AND body_digest = ?',
  deleteBodiesBefore: deleteSlice('delivery_bodies', 'received_at < ?'),
  pendingDeliveries: `${PENDING} ORDER BY seq`,
  pendingDeliveriesOf: `${PENDING} AND pr_key = ? ORDER BY seq`,
  // The delivery ids are one JSON array: one statement however many deliveries the commit applies.
  markApplied: 'UPDATE deliveries SET applied_at = ?, event = NULL WHERE provider = ? AND delivery_id IN ({json_texts})',
  pendingDeliveryStats: `SELECT sum(CASE WHEN parked_at IS NULL THEN 1 ELSE 0 END) AS n, min(CASE WHEN parked_at IS NULL THEN received_at END) AS oldest,
    sum(CASE WHEN parked_at IS NULL THEN 0 ELSE 1 END) AS parked FROM deliveries WHERE applied_at IS NULL`,
  // A failed batch: one more attempt for each of the pull request's pending deliveries, then those at the limit parked.
  countFailedAttempt: 'UPDATE deliveries SET attempts = attempts + 1 WHERE pr_key = ? AND applied_at IS NULL AND parked_at IS NULL',
  parkExhausted: 'UPDATE deliveries SET parked_at = ? WHERE pr_key = ? AND applied_at IS NULL AND parked_at IS NULL AND attempts >= ?',
  // The lease is cleared too: on PostgreSQL it has run out, so any replica's next sweep takes the delivery.
  replayParked: 'UPDATE deliveries SET parked_at = NULL, attempts = 0, lease_owner = NULL, lease_expires_at = NULL WHERE parked_at IS NOT NULL AND applied_at IS NULL',
  deleteAppliedDeliveriesBefore: deleteSlice('deliveries', 'applied_at IS NOT NULL AND applied_at < ?'),

  recordPostIntent: `
    INSERT INTO post_intents (provider, repository, pr_number, channel, marker, mentions, state, lifecycle, last_delivery_id, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, pr_number, channel) DO UPDATE SET
      marker = excluded.marker, mentions = excluded.mentions, state = excluded.state, lifecycle = excluded.lifecycle,
      last_delivery_id = excluded.last_delivery_id, created_at = excluded.created_at`,
  findPostIntent: `SELECT * FROM post_intents WHERE ${MESSAGE_KEY}`,
  postIntents: 'SELECT * FROM post_intents ORDER BY created_at',
  postInFlight: 'SELECT 1 AS found FROM post_intents WHERE channel = ? AND created_at > ? LIMIT 1',
  deletePostIntent: `DELETE FROM post_intents WHERE ${MESSAGE_KEY}`,
  dropPostIntent: `DELETE FROM post_intents WHERE ${MESSAGE_KEY} AND marker = ?`,

  findPersonLookup: 'SELECT * FROM person_lookups WHERE provider = ? AND login = ?',
  loginsOfSlackUser: `SELECT provider, login FROM person_lookups WHERE slack_user_id = ? AND outcome = 'found' ORDER BY provider{bytewise}, login{bytewise}`,
  savePersonLookup: `INSERT INTO person_lookups (provider, login, outcome, slack_user_id, expires_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, login) DO UPDATE SET outcome = excluded.outcome, slack_user_id = excluded.slack_user_id, expires_at = excluded.expires_at`,

  findThreadReply: `SELECT * FROM thread_replies WHERE ${REPLY_KEY}`,
  // A permalink in a person's reply names a message by channel and ts: one of this pull request's replies there?
  threadReplyAt: `SELECT * FROM thread_replies WHERE ${MESSAGE_KEY} AND ts = ?`,
  // An intent never overwrites a posted reply; a repeated intent moves the search's start to now.
  recordThreadReplyIntent: `
    INSERT INTO thread_replies (provider, repository, pr_number, channel, reply_key, ts, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)
    ON CONFLICT (provider, repository, pr_number, channel, reply_key) DO UPDATE SET created_at = excluded.created_at
    WHERE thread_replies.ts IS NULL`,
  threadReplyIntents: 'SELECT * FROM thread_replies WHERE ts IS NULL ORDER BY created_at',
  completeThreadReply: `UPDATE thread_replies SET ts = ? WHERE ${REPLY_KEY}`,
  dropThreadReplyIntent: `DELETE FROM thread_replies WHERE ${REPLY_KEY} AND ts IS NULL`,
  deleteThreadRepliesBefore: deleteSlice('thread_replies', 'created_at < ?'),
  deleteHeadsBefore: deleteSlice('pull_request_heads', 'seen_at < ?'),

  saveHead: `INSERT INTO pull_request_heads (provider, repository, sha, pr_number, seen_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, sha, pr_number) DO UPDATE SET seen_at = excluded.seen_at`,
  pullRequestsWithHead: 'SELECT pr_number FROM pull_request_heads WHERE provider = ? AND repository = ? AND sha = ? ORDER BY pr_number',
  hookDeliveryMark: 'SELECT delivered_at, delivery_id FROM hook_delivery_marks WHERE provider = ? AND hook = ?',
  saveHookDeliveryMark: `INSERT INTO hook_delivery_marks (provider, hook, delivered_at, delivery_id, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, hook) DO UPDATE SET
      delivered_at = excluded.delivered_at, delivery_id = excluded.delivery_id, updated_at = excluded.updated_at`,
  // Across replicas: a concurrent second insert of the same key waits for the first, then does nothing.
  claimRun: 'INSERT INTO job_runs (job, run_key, claimed_at) VALUES (?, ?, ?) ON CONFLICT (job, run_key) DO NOTHING',
  deleteRunClaimsBefore: deleteSlice('job_runs', 'claimed_at < ?'),
  claimSlackRequest: 'INSERT INTO slack_requests (request_id, received_at) VALUES (?, ?) ON CONFLICT (request_id) DO NOTHING',
  releaseSlackRequest: 'DELETE FROM slack_requests WHERE request_id = ?',
  deleteSlackRequestsBefore: deleteSlice('slack_requests', 'received_at < ?'),
  // Only finished ones (sent or dropped): a queued message waits for its morning however old its event is.
  deleteDirectMessagesBefore: deleteSlice('direct_messages', 'outcome IS NOT NULL AND created_at < ?'),
} as const

export const queries = statements(sql)
