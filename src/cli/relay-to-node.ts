import { spawn } from 'node:child_process'
import { constants } from 'node:os'

/**
 * Signals that reach this process alone (kill, a supervisor, the shell's hangup of its jobs), passed on to the
 * child. SIGINT and SIGQUIT are not among them: the terminal's Ctrl-C and Ctrl-\ go to the whole foreground
 * process group, so the child has its own already, and a second SIGINT ends a server mid-drain.
 */
const FORWARDED: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGBREAK'] : ['SIGTERM', 'SIGHUP', 'SIGUSR2']
const TERMINAL: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT'] : ['SIGINT', 'SIGQUIT']

/**
 * Runs this command again on `node`, with the same arguments, environment and working directory, and never
 * returns. Where Node has process.execve (22.15 and later) the process is replaced (same pid, nothing to
 * relay). Before that, a child with this process's standard streams: its exit status, or the signal that
 * ended it, becomes this process's.
 */
export function relayToNode(node: string): Promise<never> {
  const args = [...process.execArgv, ...process.argv.slice(1)]
  if (typeof process.execve === 'function') process.execve(node, [node, ...args], process.env)
  const child = spawn(node, args, { stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  const ignore = () => {}
  for (const signal of FORWARDED) process.on(signal, forward)
  for (const signal of TERMINAL) process.on(signal, ignore)
  return new Promise<never>(() => {
    child.once('error', (error) => {
      process.stderr.write(`prherald: cannot start ${node}: ${error.message}\n`)
      process.exit(1)
    })
    child.once('exit', (code, signal) => {
      if (signal) {
        for (const s of [...FORWARDED, ...TERMINAL]) process.removeAllListeners(s)
        process.kill(process.pid, signal)
        // Where the signal does not end a process (or on Windows), the shell's 128 + n.
        setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100).unref()
        return
      }
      process.exit(code ?? 1)
    })
  })
}
