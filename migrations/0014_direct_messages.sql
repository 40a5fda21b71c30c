-- The personal side (docs/notifications.md): direct messages, each person's preferences, and their Slack time
-- zones. A direct message is a row before it is sent (the intent): one per person and key (the delivery and
-- what happened), so a replayed batch queues nothing new and a sent one is never sent again. `due_at` holds a
-- message outside the person's working hours until the start of their next working day. A sender claims a
-- person's due rows (`claimed_by`, `claimed_until`: one replica at a time), writes the gathered message's
-- `batch` before posting it (its metadata carries the batch, so a post of unknown outcome is looked for in the
-- conversation before it is sent again), and sets `outcome` once it is in Slack (`sent`) or refused (`dropped`).
CREATE TABLE direct_messages (
  recipient      TEXT     NOT NULL,               -- Slack user id
  dm_key         TEXT     NOT NULL,
  pr_key         TEXT     NOT NULL,
  body           TEXT     NOT NULL,               -- one line, as the message shows it
  due_at         {millis} NOT NULL,
  created_at     {millis} NOT NULL,
  claimed_by     TEXT,
  claimed_until  {millis} NOT NULL DEFAULT 0,
  batch          TEXT,
  batch_at       {millis},
  channel        TEXT,
  ts             TEXT,
  outcome        TEXT,
  PRIMARY KEY (recipient, dm_key)
);
CREATE INDEX direct_messages_due ON direct_messages (outcome, due_at);

-- What each person chose with /prherald or the home tab; NULL: what config.yaml says.
CREATE TABLE person_preferences (
  slack_user       TEXT     PRIMARY KEY,
  direct_messages  TEXT,                           -- on | off
  working_hours    TEXT,                           -- HH:MM-HH:MM
  updated_at       {millis} NOT NULL
);

-- /prherald mute <pull request>: no direct messages about it to this person.
CREATE TABLE direct_message_mutes (
  slack_user  TEXT     NOT NULL,
  pr_key      TEXT     NOT NULL,
  created_at  {millis} NOT NULL,
  PRIMARY KEY (slack_user, pr_key)
);

-- users.info's time zone per person, cached; NULL: Slack has none (the configured default applies).
CREATE TABLE slack_user_zones (
  slack_user  TEXT     PRIMARY KEY,
  time_zone   TEXT,
  expires_at  {millis} NOT NULL
);
