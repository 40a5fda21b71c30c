import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { PrheraldError } from '../errors.ts'

export interface LockedEntry {
  /** SHA-256 of the canonical JSON of what the entry's validation depends on (see entry-hash.ts). */
  hash: string
  /** ISO-8601 time of the successful validation. */
  validated_at: string
}

/** config.lock: one record per mapping entry that passed validation, keyed `owner/repo` (`owner/*` for a catch-all). */
export interface ConfigLock {
  version: 1
  entries: Record<string, LockedEntry>
}

export function emptyLock(): ConfigLock {
  return { version: 1, entries: {} }
}

/**
 * Reads config.lock. A missing file is an empty lock (first start). So is an unreadable or malformed one,
 * reported in `problem`: the cost is one full validation, never a wrong answer.
 */
export function readConfigLock(file: string): { lock: ConfigLock; problem: string | undefined } {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lock: emptyLock(), problem: undefined }
    return { lock: emptyLock(), problem: `cannot read ${file}: ${(error as Error).message}` }
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigLock>
    if (parsed.version !== 1 || typeof parsed.entries !== 'object' || parsed.entries === null) throw new Error('unknown format')
    const entries: Record<string, LockedEntry> = {}
    for (const [key, value] of Object.entries(parsed.entries)) {
      if (typeof value?.hash === 'string' && typeof value.validated_at === 'string') entries[key] = { hash: value.hash, validated_at: value.validated_at }
    }
    return { lock: { version: 1, entries }, problem: undefined }
  } catch (error) {
    return { lock: emptyLock(), problem: `${file} is not a prherald lock file (${(error as Error).message}); every entry is validated again` }
  }
}

/** Writes config.lock atomically: a 0600 temp file beside it, flushed, then renamed over it. */
export function writeConfigLock(file: string, lock: ConfigLock): void {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  try {
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, `${JSON.stringify(lock, null, 2)}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, file)
  } catch (cause) {
    rmSync(temp, { force: true })
    throw new PrheraldError('lock', `cannot write ${file}: ${(cause as Error).message}`, {
      cause,
      fix: 'make the directory of the config file writable by this user; without config.lock every start validates every entry again',
    })
  }
}
