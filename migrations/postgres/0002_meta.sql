-- Twin of migrations/0002_meta.sql: facts about the database itself, one row per key (git_provider:
-- github | bitbucket, written by the server or prherald-migrate up, not by this migration).
CREATE TABLE meta (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
