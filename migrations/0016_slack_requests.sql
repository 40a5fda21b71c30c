-- Slack's requests already taken (docs/security.md#slack-requests): one row per Events API `event_id`, or per
-- slash command's or action's `trigger_id` (never the button's fixed action_id), committed before the
-- handler runs and before the acknowledgement. Slack's retry of the same request, to another replica or after
-- a restart, finds its row and is acknowledged without acting again. Kept for the replay window (7 days),
-- then deleted by the daily cleanup with the applied delivery ids.
CREATE TABLE slack_requests (
  request_id   TEXT     PRIMARY KEY,              -- `event:<event_id>` or `trigger:<trigger_id>`
  received_at  {millis} NOT NULL
);
CREATE INDEX slack_requests_received ON slack_requests (received_at);
