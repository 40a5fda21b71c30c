-- One row per pull request and Slack channel: the message prherald keeps up to date.
CREATE TABLE slack_messages (
  provider          TEXT    NOT NULL,            -- github | bitbucket
  repository        TEXT    NOT NULL,            -- owner/repo (Bitbucket: workspace/slug)
  pr_number         INTEGER NOT NULL,
  channel           TEXT    NOT NULL,            -- Slack channel ID
  ts                TEXT    NOT NULL,            -- Slack message timestamp, the message's identity
  mentions          TEXT    NOT NULL DEFAULT '[]', -- JSON list of the mention tokens this message carries
  state             TEXT    NOT NULL,            -- lifecycle state: open, draft, merged, closed
  lifecycle         TEXT    NOT NULL,            -- JSON: state and review facts, restored into the machine
  last_delivery_id  TEXT,                        -- the delivery this row last reflects (replay guard)
  --postgres: reactions         TEXT,            -- PostgreSQL's schema began at 0004's (see there)
  created_at        {millis} NOT NULL,           -- unix milliseconds
  touched_at        {millis} NOT NULL,           -- unix milliseconds; cleanup deletes old rows
  PRIMARY KEY (provider, repository, pr_number, channel)
);
CREATE INDEX slack_messages_touched_at ON slack_messages (touched_at);

-- Durable intake: a delivery is written here before it is acknowledged, and replayed after a crash.
-- Applied rows keep their id (event cleared) so that a redelivery is recognised as a duplicate.
CREATE TABLE deliveries (
  seq          {seq}, -- arrival order, the replay order
  provider     TEXT    NOT NULL,
  delivery_id  TEXT    NOT NULL,
  pr_key       TEXT    NOT NULL,
  event        TEXT,                               -- decoded event JSON while pending, NULL once applied
  received_at  {millis} NOT NULL,
  applied_at   {millis},
  UNIQUE (provider, delivery_id)
);
CREATE INDEX deliveries_pending ON deliveries (seq) WHERE applied_at IS NULL;
CREATE INDEX deliveries_applied_at ON deliveries (applied_at) WHERE applied_at IS NOT NULL;
