-- Turnaround figures (docs/review-loop.md): one compact row per pull request, written by its batches while
-- `insights.enabled` is on and kept `insights.keep_days` after its last change, past `cleanup.message_ttl_days`.
-- Times are the host's (unix milliseconds); `reviews` is a JSON list of [login, at] of reviews by others than the
-- author, `teams` a JSON list of the team slugs asked to review.
CREATE TABLE pull_request_turnaround (
  provider           TEXT     NOT NULL,
  repository         TEXT     NOT NULL,
  pr_number          INTEGER  NOT NULL,
  entry              TEXT,                    -- the mapping entry that routed it: owner/repo or owner/*
  author             TEXT     NOT NULL,
  opened_at          {millis},
  ready_at           {millis},
  first_review_at    {millis},
  first_approval_at  {millis},
  merged_at          {millis},
  closed_at          {millis},
  merged_by          TEXT,
  reviews            TEXT     NOT NULL DEFAULT '[]',
  teams              TEXT     NOT NULL DEFAULT '[]',
  updated_at         {millis} NOT NULL,
  PRIMARY KEY (provider, repository, pr_number)
);
CREATE INDEX pull_request_turnaround_updated_at ON pull_request_turnaround (updated_at);
