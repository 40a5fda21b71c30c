-- The emoji names each message carries, so that a renamed reaction (slack.reactions, per mapping tier) is
-- swapped on the message at its next event. NULL: a row written before this column existed (its emoji are
-- assumed to be the names configured now).
ALTER TABLE slack_messages ADD COLUMN reactions TEXT;
