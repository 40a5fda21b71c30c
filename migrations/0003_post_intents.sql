-- A post prherald is about to make, written (and committed) before chat.postMessage is sent. While a row
-- is here the post's outcome is unknown: it may be in Slack without its ts in slack_messages (a crash, a
-- timeout, a reset connection). The post carries message metadata naming the pull request and `marker`,
-- so that the channel's history tells whether it landed. The row goes once the ts is saved, or once Slack
-- refused the post for sure. The other columns are the slack_messages row to write if the post is found.
CREATE TABLE post_intents (
  provider          TEXT    NOT NULL,
  repository        TEXT    NOT NULL,
  pr_number         INTEGER NOT NULL,
  channel           TEXT    NOT NULL,
  marker            TEXT    NOT NULL,            -- the delivery id the post carries in its metadata
  mentions          TEXT    NOT NULL DEFAULT '[]',
  state             TEXT    NOT NULL,
  lifecycle         TEXT    NOT NULL,
  last_delivery_id  TEXT,
  created_at        {millis} NOT NULL,            -- unix milliseconds: history is searched from about here
  PRIMARY KEY (provider, repository, pr_number, channel)
);
