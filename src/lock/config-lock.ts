import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { PrheraldError } from '../errors.ts'

export interface LockedEntry {
  /** SHA-256 of the canonical JSON of what the entry's validation depends on (see entry-hash.ts). */
  hash: string
  /** ISO-8601 time of the successful validation. */
  validated_at: string
}

/** One host's part of config.lock: a record per mapping entry that passed validation, keyed `owner/repo` (`owner/*` for a catch-all). */
export interface ConfigLock {
  entries: Record<string, LockedEntry>
}

/**
 * config.lock, keyed by host: `{ version: 2, hosts: { github: { entries } } }`. An owner/repo may be configured
 * on two hosts and mean two repositories, so each host's entries are its own.
 */
export interface ConfigLockFile {
  version: 2
  hosts: Record<string, ConfigLock>
}

export function emptyLock(): ConfigLock {
  return { entries: {} }
}

/** A host's part of the file; an empty one for a host it has none of. */
export function hostLock(file: ConfigLockFile, host: string): ConfigLock {
  return file.hosts[host] ?? emptyLock()
}

function readEntries(raw: unknown): Record<string, LockedEntry> {
  if (typeof raw !== 'object' || raw === null) throw new Error('unknown format')
  const entries: Record<string, LockedEntry> = {}
  for (const [key, value] of Object.entries(raw as Record<string, { hash?: unknown; validated_at?: unknown } | null>)) {
    if (typeof value?.hash === 'string' && typeof value.validated_at === 'string') entries[key] = { hash: value.hash, validated_at: value.validated_at }
  }
  return entries
}

/**
 * Reads config.lock. A missing file is an empty lock (first start). So is an unreadable or malformed one,
 * reported in `problem`: the cost is one full validation, never a wrong answer. A version 1 file (before
 * several hosts) is the single host's: its entries are read as `soleHost`'s, or, once the file lists several
 * hosts, as each one's (every entry's hash holds its host, so only the host it was validated for matches it).
 */
export function readConfigLock(file: string, hosts: readonly string[]): { lock: ConfigLockFile; problem: string | undefined } {
  const empty = (): ConfigLockFile => ({ version: 2, hosts: {} })
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lock: empty(), problem: undefined }
    return { lock: empty(), problem: `cannot read ${file}: ${(error as Error).message}` }
  }
  try {
    const parsed = JSON.parse(text) as { version?: unknown; entries?: unknown; hosts?: unknown }
    if (parsed.version === 1) {
      const entries = readEntries(parsed.entries)
      return { lock: { version: 2, hosts: Object.fromEntries(hosts.map((host) => [host, { entries: { ...entries } }])) }, problem: undefined }
    }
    if (parsed.version !== 2 || typeof parsed.hosts !== 'object' || parsed.hosts === null) throw new Error('unknown format')
    const byHost = Object.fromEntries(Object.entries(parsed.hosts as Record<string, { entries?: unknown } | null>).map(([host, part]) => [host, { entries: readEntries(part?.entries) }]))
    return { lock: { version: 2, hosts: byHost }, problem: undefined }
  } catch (error) {
    return { lock: empty(), problem: `${file} is not a prherald lock file (${(error as Error).message}); every entry is validated again` }
  }
}

/** Writes config.lock atomically: a 0600 temp file beside it, flushed, then renamed over it. */
export function writeConfigLock(file: string, lock: ConfigLockFile): void {
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
