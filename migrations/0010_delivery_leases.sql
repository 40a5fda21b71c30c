-- Leases on pending deliveries, for several servers sharing one database (PostgreSQL; docs/architecture.md,
-- "How replicas share the work"). A pending delivery is held by the server that accepted it (lease_owner
-- NULL: held by its receiver until received_at plus the lease), or by the one that last claimed or renewed
-- it, until lease_expires_at. A server renews the leases of what it holds while it works; another server
-- takes over a delivery whose lease ran out. A SQLite file has one server, so these columns stay NULL there.
ALTER TABLE deliveries ADD COLUMN lease_owner TEXT;             -- the server's replica id (host and pid)
ALTER TABLE deliveries ADD COLUMN lease_expires_at {millis};      -- unix milliseconds
-- A worker reads every pending delivery of its pull request, in arrival order.
CREATE INDEX deliveries_pending_by_pr ON deliveries (pr_key, seq) WHERE applied_at IS NULL;
