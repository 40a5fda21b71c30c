-- The people each open pull request concerns (docs/performance.md, "A year of history"): its author and
-- whoever it waits on, as keys `user:<login or account id>` and `team:<slug>` (lower case), written with its
-- message rows. /prherald mine and the Home tab read a person's pull requests through it instead of every
-- open message. A pull request that is no longer open has none; rows of a pull request cleanup forgot age out
-- with the same cutoff as its messages.
CREATE TABLE pull_request_people (
  provider    TEXT     NOT NULL,
  repository  TEXT     NOT NULL,
  pr_number   INTEGER  NOT NULL,
  person      TEXT     NOT NULL,
  touched_at  {millis} NOT NULL,
  PRIMARY KEY (provider, repository, pr_number, person)
);
CREATE INDEX pull_request_people_person ON pull_request_people (provider, person);
CREATE INDEX pull_request_people_touched_at ON pull_request_people (touched_at);
