import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { packageRoot } from '../../src/package-root.ts'

const ROOT = packageRoot()

/** The built CLIs under dist/src/cli, by file name. */
export type CliName = 'server' | 'migrate' | 'config' | 'doctor' | 'setup' | 'smoke' | 'reconcile'

/** Runs one of the built CLIs (dist/, compiled by `npm test`'s pretest) and returns its output. */
export function runCli(name: CliName, args: string[], env: Env, cwd = ROOT) {
  const result = spawnSync(process.execPath, [join(ROOT, 'dist/src/cli', `${name}.js`), ...args], {
    cwd, env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

export interface SpawnedServer {
  child: ChildProcess
  port: number
  url: string
  lines: string[]
  entries(): Array<Record<string, unknown>>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts `prherald-server` as a real process (JSON logs) and resolves once it logs `listening`. */
export async function spawnServer(env: Env, cwd = ROOT): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli/server.js')], {
    cwd, env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let buffer = ''
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })))
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        lines.push(line)
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number }
          if (entry.msg === 'listening' && typeof entry.port === 'number') resolve(entry.port)
        } catch { /* pretty or partial line */ }
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    void exited.then(({ code }) => reject(new Error(`prherald-server exited with ${code} before listening:\n${lines.join('\n')}`)))
    setTimeout(() => reject(new Error(`prherald-server did not start:\n${lines.join('\n')}`)), 20_000).unref()
  })
  return {
    child, port, url: `http://127.0.0.1:${port}`, lines, exited,
    entries: () => lines.flatMap((l) => { try { return [JSON.parse(l) as Record<string, unknown>] } catch { return [] } }),
  }
}

/** Test cleanup: SIGKILLs a spawned server (or CLI) that is still running and waits until it is gone. */
export async function killServer(server: { child: ChildProcess; exited: Promise<unknown> } | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return
  server.child.kill('SIGKILL')
  await server.exited
}
