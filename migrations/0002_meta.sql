-- Facts about the database itself, one row per key.
-- git_provider: github | bitbucket, the host whose pull requests the rows describe. Rows of one host would
-- collide with another's (same repository names and numbers) and silently suppress posts, so a server for the
-- other host refuses this database. Written by the server or prherald-migrate up, not by this migration: an
-- existing database takes it from its rows, a new one from the configuration.
CREATE TABLE meta (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
