-- The digest of each delivery's raw body (docs/security.md, "Replayed deliveries"). GitHub and Bitbucket sign
-- the body, not the delivery id header, so a captured delivery sent again under a new id is recognised here:
-- the same body under another id is a replay; under the same id it is the host's own redelivery (a duplicate).
-- One row per body, not a column of `deliveries`: a check result's one body is recorded as a delivery per
-- pull request. Kept for the replay window (7 days) even when cleanup.message_ttl_days is shorter.
CREATE TABLE delivery_bodies (
  provider     TEXT     NOT NULL,
  body_digest  TEXT     NOT NULL,                  -- SHA-256 of the raw body, hex
  delivery_id  TEXT     NOT NULL,                  -- the host's delivery id the body first came with
  received_at  {millis} NOT NULL,                  -- unix milliseconds
  PRIMARY KEY (provider, body_digest)
);
CREATE INDEX delivery_bodies_received_at ON delivery_bodies (received_at);
