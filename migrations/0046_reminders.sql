-- Reminders (docs/review-loop.md#reminders): who each open pull request waits on, as the reminder job last saw
-- it. A row is a hold: since when the person holds it (`role` review: their review is asked; author: it waits on
-- its author), how many reminders they got and when the last was queued, and when its thread was told. The
-- job queues each reminder as a direct_messages row under a key made of the hold and its count, then counts it
-- here with a compare-and-set on `reminders`: two replicas queue one row, and a crash between the two repeats
-- the same key. A hold that ends is deleted; a new one starts from zero.
CREATE TABLE reminder_holds (
  pr_key        TEXT     NOT NULL,
  recipient     TEXT     NOT NULL,               -- Slack user id
  role          TEXT     NOT NULL,               -- review | author
  since         {millis} NOT NULL,
  reminders     INTEGER  NOT NULL DEFAULT 0,
  reminded_at   {millis},
  escalated_at  {millis},
  PRIMARY KEY (pr_key, recipient)
);

-- /prherald snooze <link> 2d: no reminder about that pull request to that person until `span` of their working
-- time has passed since `snoozed_at`.
CREATE TABLE reminder_snoozes (
  slack_user  TEXT     NOT NULL,
  pr_key      TEXT     NOT NULL,
  snoozed_at  {millis} NOT NULL,
  span        TEXT     NOT NULL,                 -- Nd | Nh
  PRIMARY KEY (slack_user, pr_key)
);
