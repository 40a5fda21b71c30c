-- Replies prherald posts in a message's thread (slack.thread_updates, notify.review_requests), one row per
-- reply key: the delivery id and the event (or reviewer) it tells of, so a replay or a repeated event never
-- posts one twice. `ts` NULL: the reply is about to be posted or its outcome is unknown (a timeout, a crash
-- after sending); it carries the key in its message metadata, and the thread is searched for it
-- (conversations.replies) before it is posted again. Cleanup ages rows out with the messages.
CREATE TABLE thread_replies (
  provider    TEXT    NOT NULL,
  repository  TEXT    NOT NULL,
  pr_number   INTEGER NOT NULL,
  channel     TEXT    NOT NULL,
  reply_key   TEXT    NOT NULL,
  ts          TEXT,                              -- the reply's ts once it is known to be in Slack
  created_at  {millis} NOT NULL,                  -- unix milliseconds: the thread is searched from about here
  PRIMARY KEY (provider, repository, pr_number, channel, reply_key)
);
CREATE INDEX thread_replies_created_at ON thread_replies (created_at);

-- Every head commit seen for a pull request (GitHub opened/synchronize/reopened): a `status` event names only
-- its commit, and this maps it back to the pull requests whose head it is or was. The lifecycle keeps the
-- current head and decides whether a result is for it.
CREATE TABLE pull_request_heads (
  provider    TEXT    NOT NULL,
  repository  TEXT    NOT NULL,
  sha         TEXT    NOT NULL,
  pr_number   INTEGER NOT NULL,
  seen_at     {millis} NOT NULL,                  -- unix milliseconds; cleanup forgets old heads
  PRIMARY KEY (provider, repository, sha, pr_number)
);
CREATE INDEX pull_request_heads_seen_at ON pull_request_heads (seen_at);
