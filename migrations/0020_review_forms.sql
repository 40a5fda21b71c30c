-- A review form a click on a message's review action opened (docs/talk-back.md, "Review from Slack"). The
-- modal's private_metadata carries only `id`, a random value: what the form reviews (the pull request, the
-- head commit the message showed, the action) and whose it is are read back from here, never from what
-- Slack's client sends. Submitting marks the row (`submitted_at`: one review per form, on any replica); rows
-- expire after an hour and go at the next form opened.
CREATE TABLE review_forms (
  id          TEXT     PRIMARY KEY,
  provider    TEXT     NOT NULL,
  repository  TEXT     NOT NULL,
  pr_number   INTEGER  NOT NULL,
  head_sha    TEXT     NOT NULL,           -- '' where the host named no head commit (Bitbucket)
  action      TEXT     NOT NULL,           -- approve | request_changes | comment
  slack_user  TEXT     NOT NULL,
  expires_at  {millis} NOT NULL,
  created_at  {millis} NOT NULL,
  submitted_at {millis}                    -- NULL until submitted
);
CREATE INDEX review_forms_expiry ON review_forms (expires_at);

