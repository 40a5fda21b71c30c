-- The weekly summary (docs/review-loop.md#weekly-summary): one row per channel and ISO week, the intent of that
-- week's post, and the moment its figures are made as of. A replica holds it (`owner`, until `held_until`) while it posts; one that dies holding it lets it
-- go when that time runs out, and another replica finishes it. `intent_at` is when the upload was started,
-- `file_id` the file Slack gave it (looked for in the channel before anything is sent again), `done_at` when it
-- was posted (`outcome` posted) or refused by Slack for good (`outcome` refused). A channel keeps its last weeks.
CREATE TABLE weekly_posts (
  channel     TEXT     NOT NULL,
  week        TEXT     NOT NULL,          -- 2026-W50
  owner       TEXT     NOT NULL,
  held_until  {millis} NOT NULL,
  as_of       {millis} NOT NULL,          -- the moment the summary is made as of: its scheduled time
  intent_at   {millis},
  file_id     TEXT,
  done_at     {millis},
  outcome     TEXT,
  PRIMARY KEY (channel, week)
);
