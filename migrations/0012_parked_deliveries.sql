-- Failed batches are retried with backoff (issue 23). `attempts` counts the batches that failed while the
-- delivery was pending; once it reaches retries.attempts the delivery is parked (`parked_at`): kept, never
-- deleted, no longer replayed or swept, until prherald-migrate replay-parked clears both.
ALTER TABLE deliveries ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deliveries ADD COLUMN parked_at {millis};               -- unix milliseconds; NULL: not parked
