import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, join } from 'node:path'

export interface SourceWatch {
  close(): void
}

/**
 * A name worth a restart in a watched source directory: a TypeScript file, not a name an editor or tool
 * writes beside it while saving (`.#x.ts` Emacs locks, `.x.ts.swp`, `x.ts~`, `x.ts.tmp`, vim's probe `4913`,
 * JetBrains' `x.ts___jb_tmp___`). Every one of those either does not end in `.ts` or starts with a dot.
 */
export function isSourceName(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.startsWith('.')
}

/** The directory and every directory under it, except dependencies, build output and hidden ones. */
function directoriesUnder(dir: string): string[] {
  const found = [dir]
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules' && entry.name !== 'dist') {
      found.push(...directoriesUnder(join(dir, entry.name)))
    }
  }
  return found
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * Calls onChange with the source files changed in each burst of saves (quiet for debounceMs). Each path is a
 * directory (its TypeScript sources, subdirectories included) or one file (the config). Directories are
 * watched, never files: an editor or `cp` that saves by writing a temporary file and renaming it over the
 * old one replaces the inode, and a watch on the old file (as Node 20's recursive watch on Linux keeps)
 * never fires again. Only files that exist when the burst ends count: a temporary name renamed away does not.
 */
export function watchSources(paths: string[], onChange: (files: string[]) => void, debounceMs = 150): SourceWatch {
  // Per directory, the names that count there: its sources, or the one file named (a config beside other files).
  const accepted = new Map<string, Array<(name: string) => boolean>>()
  const accept = (dir: string, test: (name: string) => boolean) => accepted.set(dir, [...(accepted.get(dir) ?? []), test])
  const watchers = new Map<string, FSWatcher>()
  const changed = new Set<string>()
  let timer: NodeJS.Timeout | undefined

  const flush = () => {
    const files = [...changed].filter((file) => existsSync(file) && !isDirectory(file))
    changed.clear()
    if (files.length > 0) onChange(files.sort())
  }

  const watchDirectory = (dir: string) => {
    if (watchers.has(dir) || !isDirectory(dir)) return
    const tests = accepted.get(dir) ?? []
    const watcher = watch(dir, (_event, name) => {
      if (!name) return
      const path = join(dir, name)
      // A directory created (or renamed in) inside a watched source tree is watched from then on.
      if (tests.includes(isSourceName) && !name.startsWith('.') && isDirectory(path)) {
        for (const sub of directoriesUnder(path)) {
          accept(sub, isSourceName)
          watchDirectory(sub)
        }
        return
      }
      if (!tests.some((test) => test(name))) return
      changed.add(path)
      clearTimeout(timer)
      timer = setTimeout(flush, debounceMs)
    })
    // A deleted directory ends its watch; that must not end the dev server.
    watcher.on('error', () => {
      watcher.close()
      watchers.delete(dir)
    })
    watchers.set(dir, watcher)
  }

  for (const path of paths) {
    if (isDirectory(path)) for (const dir of directoriesUnder(path)) accept(dir, isSourceName)
    else accept(dirname(path), (name) => name === basename(path))
  }
  for (const dir of accepted.keys()) watchDirectory(dir)

  return {
    close() {
      clearTimeout(timer)
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    },
  }
}
