-- /prherald mine and the Home tab read a person's open pull requests by (provider, person): with the pull
-- request's key in the index too, the read never touches the table, and SQLite's planner, which has no
-- statistics to go by, picks this index over the primary key (docs/performance.md, "A year of history").
DROP INDEX pull_request_people_person;
CREATE INDEX pull_request_people_person ON pull_request_people (provider, person, repository, pr_number);
