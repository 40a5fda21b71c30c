import { spawn, type ChildProcess } from 'node:child_process'

export interface Supervisor {
  start(): void
  /** Stops the running process (SIGTERM, its graceful stop) and starts a fresh one. Calls made meanwhile fold into one. */
  restart(reason: string): Promise<void>
  stop(): Promise<void>
}

export interface SupervisorOptions {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  log: (line: string) => void
  /** How long a stopping process may drain before it is killed. */
  stopTimeoutMs?: number
}

/**
 * Runs the dev server as a child process and replaces it on change. A whole new process, not an in-process
 * reload: the old one closes its database (and its lock), its timers and its port before the next opens them.
 */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  let child: ChildProcess | undefined
  let restarting: Promise<void> | undefined
  let again = false
  let stopped = false

  const start = () => {
    const current = spawn(options.command, options.args, { env: options.env, stdio: 'inherit' })
    child = current
    current.once('exit', (code, signal) => {
      if (child === current && !stopped) options.log(`prherald exited (${signal ?? `code ${code}`}); it restarts at the next change`)
      if (child === current) child = undefined
    })
  }

  const end = async (): Promise<void> => {
    const current = child
    // Forgotten first, so that its exit reads as the restart it is, not as a crash.
    child = undefined
    if (!current || current.exitCode !== null || current.signalCode !== null) return
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()))
    current.kill('SIGTERM')
    const timer = setTimeout(() => current.kill('SIGKILL'), options.stopTimeoutMs ?? 10_000)
    await exited
    clearTimeout(timer)
  }

  const restart = (reason: string): Promise<void> => {
    if (restarting) {
      again = true
      return restarting
    }
    restarting = (async () => {
      do {
        again = false
        options.log(`restarting: ${reason}`)
        await end()
        if (!stopped) start()
      } while (again && !stopped)
      restarting = undefined
    })()
    return restarting
  }

  return {
    start,
    restart,
    async stop() {
      stopped = true
      await restarting
      await end()
    },
  }
}
