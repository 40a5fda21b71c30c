-- What each person did from Slack in the last minute (docs/talk-back.md, "Security"): at most 5 review
-- actions and 20 replies a minute per person, counted here so that replicas count them together. A take
-- first writes the person's `person_action_gates` row (on PostgreSQL that row's lock makes a second replica's
-- take for the same person and kind wait for the first's commit), then counts the person's rows of the last
-- minute and records one only when under the limit. A take deletes the person's rows older than its window;
-- the daily cleanup deletes everyone's older than its cutoff.
CREATE TABLE person_action_gates (
  kind        TEXT     NOT NULL,           -- reviews | replies
  slack_user  TEXT     NOT NULL,
  taken_at    {millis} NOT NULL,           -- the last take's time
  PRIMARY KEY (kind, slack_user)
);

CREATE TABLE person_actions (
  seq         {seq},
  kind        TEXT     NOT NULL,
  slack_user  TEXT     NOT NULL,
  taken_at    {millis} NOT NULL
);
CREATE INDEX person_actions_by_person ON person_actions (kind, slack_user, taken_at);
CREATE INDEX person_actions_taken_at ON person_actions (taken_at);
