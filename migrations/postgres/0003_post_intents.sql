-- Twin of migrations/0003_post_intents.sql: a post prherald is about to make, committed before
-- chat.postMessage is sent, so that a post whose outcome is unknown can be looked up in the channel's
-- history (by `marker`, the delivery id in the message metadata) instead of being posted twice.
CREATE TABLE post_intents (
  provider          TEXT    NOT NULL,
  repository        TEXT    NOT NULL,
  pr_number         INTEGER NOT NULL,
  channel           TEXT    NOT NULL,
  marker            TEXT    NOT NULL,
  mentions          TEXT    NOT NULL DEFAULT '[]',
  state             TEXT    NOT NULL,
  lifecycle         TEXT    NOT NULL,
  last_delivery_id  TEXT,
  created_at        BIGINT  NOT NULL,
  PRIMARY KEY (provider, repository, pr_number, channel)
);
