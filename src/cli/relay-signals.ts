import type { ChildProcess } from 'node:child_process'

/**
 * Signals that reach a parent alone (kill, a supervisor, the shell's hangup of its jobs), passed on to the
 * child. SIGINT and SIGQUIT are not among them: the terminal's Ctrl-C and Ctrl-\ go to the whole foreground
 * process group, so the child has its own already, and a second SIGINT ends a server mid-drain. The parent
 * keeps running on them (their listener does nothing) until the child exits.
 */
export const FORWARDED_SIGNALS: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGBREAK'] : ['SIGTERM', 'SIGHUP', 'SIGUSR2']
export const TERMINAL_SIGNALS: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT'] : ['SIGINT', 'SIGQUIT']

/** Installs the relay for `child`; the returned function removes it. */
export function relaySignals(child: ChildProcess): () => void {
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  const ignore = () => {}
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward)
  for (const signal of TERMINAL_SIGNALS) process.on(signal, ignore)
  return () => {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forward)
    for (const signal of TERMINAL_SIGNALS) process.off(signal, ignore)
  }
}
