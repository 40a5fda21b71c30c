import { spawn, type ChildProcess } from 'node:child_process'
import type { Env } from '../../src/config/load-config.ts'

export interface ShellScript {
  child: ChildProcess
  /** stdout and stderr so far, interleaved by arrival. */
  output(): string
  exited: Promise<number | null>
  /** Signals the script and everything it started (its process group), then waits until all of it is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Runs `script` with `sh -e` as a user's terminal would (stop at the first failing command), in a process
 * group of its own so that a command it leaves running (a server) can be stopped with it.
 */
export function startShellScript(script: string, env: Env, cwd: string): ShellScript {
  const child = spawn('sh', ['-e', '-c', script], { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  const alive = () => {
    try {
      process.kill(-child.pid!, 0)
      return true
    } catch {
      return false
    }
  }
  return {
    child, output: () => output, exited,
    async stop(signal = 'SIGTERM') {
      const deadline = Date.now() + 15_000
      if (alive()) process.kill(-child.pid!, signal)
      while (alive()) {
        if (Date.now() > deadline) process.kill(-child.pid!, 'SIGKILL')
        await new Promise((r) => setTimeout(r, 20))
      }
    },
  }
}

export function runShellScript(script: string, env: Env, cwd: string): Promise<{ status: number | null; output: string }> {
  const run = startShellScript(script, env, cwd)
  return run.exited.then((status) => ({ status, output: run.output() }))
}
