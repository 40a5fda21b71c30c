import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Creates the directory of a SQLite file (and its parents) if missing. The server lock and the database are
 * both files in it, and the lock is taken first, so both openers call this: a fresh `data/` must not need a
 * mkdir by hand. Throws the file system's error (EACCES, ENOTDIR…) for the caller to explain.
 */
export function ensureDatabaseDirectory(databasePath: string): void {
  mkdirSync(dirname(databasePath), { recursive: true })
}
