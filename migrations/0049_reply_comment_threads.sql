-- A thread reply that links to a mirrored code comment (docs/talk-back.md, "Replies go back to the code thread")
-- becomes a reply in that code thread at the host, not a conversation comment. `thread` names it (the host's
-- code thread, as the mirrored comment's Reply button does); NULL: a conversation comment. Edits, deletions and
-- the look-up of a create whose answer was lost then act on that thread's comments.
ALTER TABLE reply_comments ADD COLUMN thread TEXT;
