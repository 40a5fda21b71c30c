import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Creates the directory of a SQLite file (and its parents) if missing. The server lock and the database are
 * both files in it, and the lock is taken first, so both openers call this: a fresh `data/` must not need a
 * mkdir by hand. Created 0700 whatever the umask: the database holds every person's preferences and every
 * message row, and another user of the host has no business listing them. A directory that exists is left as
 * it is (the operator chose it); the files in it are 0600 anyway (private-database-files.ts). Throws the file
 * system's error (EACCES, ENOTDIR…) for the caller to explain.
 */
export function ensureDatabaseDirectory(databasePath: string): void {
  mkdirSync(dirname(databasePath), { recursive: true, mode: 0o700 })
}
