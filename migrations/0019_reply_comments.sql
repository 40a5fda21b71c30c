-- Thread replies that became pull-request comments (docs/talk-back.md, "Thread replies"). One row per Slack
-- reply (channel and ts): the pull request it answers, who wrote it, and the comment it made. A comment is
-- created once: `intent_at` is written before the host's call and `comment_id` after it; a row with an intent
-- and no id is a call whose outcome is unknown, looked for at the host (the comment's body carries the reply's
-- marker) before anything is created again. `author` says whose account made it (`person`: the Slack user's
-- linked account; `prherald`: prherald's own, the person named), so edits and deletes go the same way.
CREATE TABLE reply_comments (
  channel     TEXT     NOT NULL,
  reply_ts    TEXT     NOT NULL,
  provider    TEXT     NOT NULL,
  repository  TEXT     NOT NULL,
  pr_number   INTEGER  NOT NULL,
  slack_user  TEXT     NOT NULL,
  author      TEXT     NOT NULL,            -- person | prherald
  comment_id  TEXT,                         -- NULL until the host answered the create
  deleted     INTEGER  NOT NULL DEFAULT 0,  -- 1 once the reply was deleted and its comment with it
  intent_at   {millis} NOT NULL,
  updated_at  {millis} NOT NULL,
  PRIMARY KEY (channel, reply_ts)
);
CREATE INDEX reply_comments_open_intents ON reply_comments (intent_at) WHERE comment_id IS NULL;
CREATE INDEX reply_comments_updated_at ON reply_comments (updated_at);

-- A reply names its thread by channel and ts: the message it answers is looked up by them.
CREATE INDEX slack_messages_channel_ts ON slack_messages (channel, ts);
