-- Talk-back (docs/talk-back.md): people's own git-host accounts, linked with the host's OAuth.
-- A row holds the person's tokens sealed with AES-256-GCM (`sealed`) under the key `key_id` names
-- (PRHERALD_TOKEN_KEY, or PRHERALD_TOKEN_KEY_PREVIOUS until the row's next use re-seals it); no token is ever
-- stored in the clear. `generation` moves at each refresh and relink. Every host rotates refresh tokens (one
-- used is ended), so a refresh is claimed (`refreshing_by` until `refreshing_until`: one replica at a time) and
-- completed only by its claimant at the generation it claimed.
CREATE TABLE linked_accounts (
  slack_user          TEXT     NOT NULL,
  host                TEXT     NOT NULL,          -- git_provider id
  login               TEXT     NOT NULL,          -- as the host's GET /user answered
  account_key         TEXT     NOT NULL,          -- the `users:` key it was matched with (Bitbucket: the account id)
  key_id              TEXT     NOT NULL,
  sealed              TEXT     NOT NULL,
  expires_at          {millis},                   -- the access token's; NULL: it does not expire
  refresh_expires_at  {millis},                   -- GitHub's six months; NULL: the host does not say
  generation          INTEGER  NOT NULL DEFAULT 1,
  refreshing_by       TEXT,
  refreshing_until    {millis} NOT NULL DEFAULT 0,
  linked_at           {millis} NOT NULL,
  updated_at          {millis} NOT NULL,
  PRIMARY KEY (slack_user, host)
);

-- An OAuth flow between /oauth/<host>/start and its callback: single-use, ten minutes. The state and the
-- browser's cookie are kept as SHA-256 digests only (both are bearer values); the PKCE verifier is useless
-- without the code, which only the callback receives.
CREATE TABLE oauth_states (
  state_hash     TEXT     PRIMARY KEY,
  host           TEXT     NOT NULL,
  slack_user     TEXT     NOT NULL,
  cookie_hash    TEXT     NOT NULL,
  code_verifier  TEXT     NOT NULL,
  expires_at     {millis} NOT NULL,
  created_at     {millis} NOT NULL
);
CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);
