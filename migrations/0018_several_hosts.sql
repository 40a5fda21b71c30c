-- Several git hosts in one database (issue 34). Every other table already carries the host in its keys;
-- these two did not.
--
-- person_lookups was keyed by login alone: alice on GitHub and alice on GitLab would have shared one Slack
-- user. It is keyed by host and login now. Its rows so far are the one host's this database served: the
-- host meta recorded, else the one its newest messages belong to, else GitHub (the first host with the
-- look-up). It is a cache, so a wrong guess costs a look-up, never a wrong answer for long.
CREATE TABLE person_lookups_by_host (
  provider       TEXT    NOT NULL,               -- the host's id (src/hosts/registry.ts)
  login          TEXT    NOT NULL,               -- the login, lower-cased
  outcome        TEXT    NOT NULL,               -- found | not_found (no public email, or no Slack user with it) | failed
  slack_user_id  TEXT,                           -- set when found
  expires_at     {millis} NOT NULL,              -- unix milliseconds
  PRIMARY KEY (provider, login)
);
INSERT INTO person_lookups_by_host (provider, login, outcome, slack_user_id, expires_at)
  SELECT COALESCE(
      (SELECT value FROM meta WHERE key = 'git_provider'),
      (SELECT provider FROM slack_messages ORDER BY touched_at DESC LIMIT 1),
      'github'),
    login, outcome, slack_user_id, expires_at
  FROM person_lookups;
DROP TABLE person_lookups;
ALTER TABLE person_lookups_by_host RENAME TO person_lookups;
CREATE INDEX person_lookups_slack_user ON person_lookups (slack_user_id);

-- meta.git_provider named the one host the database served, and a server for another host refused it. Rows
-- of several hosts live side by side now (their keys hold the host), so the record and its claim are gone:
-- adding a host to the configuration uses the database as it is.
DELETE FROM meta WHERE key = 'git_provider';
