-- Twin of migrations/0009_hook_delivery_marks.sql: per GitHub webhook, the newest entry of GitHub's delivery
-- log that prherald-reconcile has looked at (hook: `owner/repo#<hook id>`).
CREATE TABLE hook_delivery_marks (
  provider      TEXT    NOT NULL,
  hook          TEXT    NOT NULL,
  delivered_at  TEXT    NOT NULL,
  delivery_id   TEXT    NOT NULL,
  updated_at    BIGINT  NOT NULL,            -- unix milliseconds
  PRIMARY KEY (provider, hook)
);
CREATE INDEX slack_messages_state ON slack_messages (provider, state);
