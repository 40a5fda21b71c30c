-- Twin of migrations/0006_person_lookups.sql: the Slack user found for a GitHub login by its public email
-- (slack.lookup_users_by_email), cached until expires_at. The email itself is never stored.
CREATE TABLE person_lookups (
  login          TEXT    NOT NULL PRIMARY KEY,
  outcome        TEXT    NOT NULL,
  slack_user_id  TEXT,
  expires_at     BIGINT  NOT NULL
);
