-- Indexes for a database with a year of history (docs/performance.md, "A year of history"): each serves a
-- statement that otherwise read a whole growing table (test/store/query-plans.test.ts finds those).
--
-- The open messages, for the digest, /prherald mine and channel, and the Home tab: only the open rows, in
-- the order they are read, however many merged and closed ones a year leaves behind.
CREATE INDEX slack_messages_open ON slack_messages (channel, created_at, repository, pr_number) WHERE state = 'open';
-- Thread replies whose ts is not known yet, for the start-up recovery: a handful among a year's replies.
CREATE INDEX thread_replies_intents ON thread_replies (created_at) WHERE ts IS NULL;
-- The daily cleanup's finished direct messages older than the cutoff.
CREATE INDEX direct_messages_created_at ON direct_messages (created_at);
-- A reply in a thread prherald does not know: is a post in flight in that channel (one row, not every intent)?
CREATE INDEX post_intents_channel ON post_intents (channel, created_at);
