import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Writable } from 'node:stream'
import { packageRoot } from '../src/package-root.ts'

export interface Child {
  child: ChildProcess
  url: string
  stop(): Promise<void>
}

const running = new Set<ChildProcess>()

/** Kills every child still running (the bench's time limit). */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL')
}

/**
 * Spawns a node script (relative to this tree, or absolute: another tree's) and waits for its JSON `listening`
 * line (prherald logs `port`, baselines `url`). `log`: the whole of its stdout goes there, start-up lines too.
 */
export function spawnListening(script: string, args: string[], env: NodeJS.ProcessEnv, log?: Writable): Promise<Child> {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(process.execPath, [...nodeArgs, resolve(packageRoot(), script), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  running.add(child)
  child.once('exit', () => running.delete(child))
  if (log) child.stdout?.pipe(log)
  return new Promise((resolve, reject) => {
    let buffer = ''
    const untilListening = (chunk: Buffer) => {
      buffer += chunk.toString()
      for (const line of buffer.split('\n')) {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string; port?: number }
          if (entry.msg !== 'listening') continue
          const url = entry.url ?? `http://127.0.0.1:${entry.port}`
          child.stdout?.off('data', untilListening)
          child.stdout?.resume()
          resolve({
            child, url,
            stop: () => new Promise((done) => { child.once('exit', () => done()); child.kill('SIGTERM') }),
          })
        } catch { /* partial line */ }
      }
    }
    child.stdout?.on('data', untilListening)
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may contain spaces): state is [0], ppid [1],
 * utime [11], stime [12], cutime [13], cstime [14].
 */
export function procStatFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')
}

/** Clock ticks (fields of /proc/<pid>/stat) as milliseconds. */
export function ticksMs(ticks: string | undefined): number {
  return (Number(ticks) / CLOCK_TICKS) * 1000
}
const CLOCK_TICKS = 100

/** CPU time (user + system, every thread) a process has used so far, in milliseconds, read from /proc. */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const fields = procStatFields(pid)
  return ticksMs(fields[11]) + ticksMs(fields[12])
}

/** Resident set size of a process in MiB, read from /proc. */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : Number.NaN
}
