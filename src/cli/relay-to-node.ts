import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { relaySignals } from './relay-signals.ts'

/**
 * Runs this command again on `node`, with the same arguments, environment and working directory, and never
 * returns. Where Node has process.execve (22.15 and later) the process is replaced (same pid, nothing to
 * relay). Before that, a child with this process's standard streams: its exit status, or the signal that
 * ended it, becomes this process's; signals are relayed without delivering the terminal's Ctrl-C twice.
 */
export function relayToNode(node: string): Promise<never> {
  const args = [...process.execArgv, ...process.argv.slice(1)]
  try {
    if (typeof process.execve === 'function') process.execve(node, [node, ...args], process.env)
  } catch {
    // The exec was refused (a seccomp policy, a noexec mount): a child does the same, with a relay.
  }
  const child = spawn(node, args, { stdio: 'inherit' })
  const unrelay = relaySignals(child)
  return new Promise<never>(() => {
    child.once('error', (error) => {
      process.stderr.write(`prherald: cannot start ${node}: ${error.message}\n`)
      process.exit(1)
    })
    child.once('exit', (code, signal) => {
      if (signal) {
        unrelay()
        process.kill(process.pid, signal)
        // Where the signal does not end a process (or on Windows), the shell's 128 + n.
        setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100).unref()
        return
      }
      process.exit(code ?? 1)
    })
  })
}
