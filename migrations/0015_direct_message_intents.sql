-- Direct messages a pull request's batch gave, before the people look-ups (issue 31): the batch commits one row
-- per event and recipient (a mapped Slack user, or a Slack user group) with its own rows, and the sender resolves
-- them into direct_messages (the group's members, each person's choice, mute and working hours), so that a slow
-- users.info or usergroups.users.list never delays the channel message. A replayed batch adds nothing new.
CREATE TABLE direct_message_intents (
  target      TEXT     NOT NULL,               -- user:<Slack user id> or group:<Slack user group id>
  dm_key      TEXT     NOT NULL,
  pr_key      TEXT     NOT NULL,
  body        TEXT     NOT NULL,
  actor_user  TEXT,                            -- the Slack user who did it: never told of their own doing
  created_at  {millis} NOT NULL,
  PRIMARY KEY (target, dm_key)
);
