import { chmodSync, closeSync, openSync } from 'node:fs'

/** Errors that leave the files as they are: none yet (ENOENT, EEXIST), or another user's (EPERM, e.g. doctor run as someone else). */
const LEFT_AS_THEY_ARE = new Set(['ENOENT', 'EEXIST', 'EPERM'])

/** SQLite's files of one database: the file itself and, in WAL mode, its log and shared-memory index. */
const SUFFIXES = ['', '-wal', '-shm'] as const

/**
 * Makes a SQLite database's files readable by this user only (0600), whatever the umask, before SQLite opens
 * them: the file is created 0600 here if missing, and SQLite gives the `-wal` and `-shm` files it creates the
 * mode of the database file. Files left 0644 by an earlier prherald are narrowed too. PostgreSQL is not
 * concerned: its files are the database server's.
 */
export function makeDatabaseFilesPrivate(path: string): void {
  tolerate(() => closeSync(openSync(path, 'wx', 0o600)))
  for (const suffix of SUFFIXES) tolerate(() => chmodSync(`${path}${suffix}`, 0o600))
}

function tolerate(step: () => void): void {
  try {
    step()
  } catch (error) {
    if (!LEFT_AS_THEY_ARE.has(String((error as { code?: unknown }).code))) throw error
  }
}
