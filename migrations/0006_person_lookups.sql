-- slack.lookup_users_by_email (GitHub): the Slack user found for a GitHub login by the public email of its
-- profile, cached until expires_at so a person costs two API calls a week, not two per delivery. The email
-- itself is never stored. A row is replaced when it is looked up again after it expired.
CREATE TABLE person_lookups (
  login          TEXT    NOT NULL PRIMARY KEY,   -- the GitHub login, lower-cased
  outcome        TEXT    NOT NULL,               -- found | not_found (no public email, or no Slack user with it) | failed
  slack_user_id  TEXT,                           -- set when found
  expires_at     {millis} NOT NULL               -- unix milliseconds
);
