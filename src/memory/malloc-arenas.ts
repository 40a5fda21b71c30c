/**
 * glibc's malloc gives each thread that allocates an arena of its own, up to 8 per core, and keeps what a
 * burst touched in each: SQLite and the HTTP parser on the main thread, libuv's pool and V8's helper threads
 * beside it. One arena measured about 8 MiB less growth over the bench's burst, 10 MiB less at its peak and
 * 2 MiB less at start; CPU within the noise (docs/performance.md, "Memory, third round"; docs/decisions.md
 * says why a re-exec). `2` gave about half the memory gain.
 */
export const MALLOC_ARENAS = '1'

export interface ArenaCapInputs {
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
  execArgv: readonly string[]
  /** glibc's version when the process runs on glibc (process.report's header), else undefined. */
  glibc: string | undefined
  canExec: boolean
}

/**
 * The environment to start the process again with so that glibc caps its arenas, or undefined when nothing
 * is to be done: not glibc on Linux (musl, macOS: the variable means nothing), the operator set
 * MALLOC_ARENA_MAX already (theirs stands, and the new process sees it set: no loop), a debugger is attached
 * by flag (it would lose its session), or this Node has no process.execve (before 22.15).
 */
export function arenaCapEnv(inputs: ArenaCapInputs): NodeJS.ProcessEnv | undefined {
  if (inputs.platform !== 'linux' || inputs.glibc === undefined || !inputs.canExec) return undefined
  if (inputs.env.MALLOC_ARENA_MAX !== undefined) return undefined
  if (inputs.execArgv.some((arg) => /^--(inspect|debug)/.test(arg))) return undefined
  return { ...inputs.env, MALLOC_ARENA_MAX: MALLOC_ARENAS }
}

/**
 * Replaces this process (same pid, same stdio, same arguments) with one started with MALLOC_ARENA_MAX set,
 * before anything is open: glibc reads it only at start. Returns when nothing is to be done, or when the
 * exec failed (then the process goes on as it was: only its memory is larger).
 */
export function capMallocArenas(): void {
  try {
    const env = arenaCapEnv({
      platform: process.platform, env: process.env, execArgv: process.execArgv,
      glibc: process.platform === 'linux' ? glibcVersion() : undefined, canExec: typeof process.execve === 'function',
    })
    if (env) process.execve!(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env)
  } catch {
    // Not fatal: the limit is a saving, not a requirement.
  }
}

/** Node's diagnostic report names the glibc it runs on (musl: none); without its network part, which may look names up. */
function glibcVersion(): string | undefined {
  // `excludeNetwork` is Node's (22.0 and later), missing from @types/node.
  const report = process.report as typeof process.report & { excludeNetwork: boolean }
  const excluded = report.excludeNetwork
  report.excludeNetwork = true
  try {
    return (report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime
  } finally {
    report.excludeNetwork = excluded
  }
}
