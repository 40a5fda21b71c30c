-- Twin of migrations/0010_delivery_leases.sql: leases on pending deliveries, so that a delivery accepted by
-- a server that died is finished by another (lease_owner NULL: held by its receiver until received_at plus
-- the lease), and the index a worker reads its pull request's pending deliveries through.
ALTER TABLE deliveries ADD COLUMN lease_owner TEXT;
ALTER TABLE deliveries ADD COLUMN lease_expires_at BIGINT;
CREATE INDEX deliveries_pending_by_pr ON deliveries (pr_key, seq) WHERE applied_at IS NULL;
