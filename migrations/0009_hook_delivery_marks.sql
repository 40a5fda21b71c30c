-- prherald-reconcile (docs/reconcile.md): per GitHub webhook, the newest entry of GitHub's delivery log that
-- reconcile has looked at. The next run asks GitHub to redeliver only failed deliveries newer than it, so a
-- failure is redelivered once, not at every run for the three days GitHub keeps the log.
-- hook: `owner/repo#<hook id>` (an organisation hook: `owner#<hook id>`).
CREATE TABLE hook_delivery_marks (
  provider      TEXT    NOT NULL,            -- github (Bitbucket has no delivery log API)
  hook          TEXT    NOT NULL,
  delivered_at  TEXT    NOT NULL,            -- ISO-8601 delivered_at of that log entry, as GitHub wrote it
  delivery_id   TEXT    NOT NULL,            -- its numeric id in the log (not the X-GitHub-Delivery guid)
  updated_at    {millis} NOT NULL,            -- unix milliseconds
  PRIMARY KEY (provider, hook)
);
-- Reconcile lists the pull requests shown as open or draft.
CREATE INDEX slack_messages_state ON slack_messages (provider, state);
