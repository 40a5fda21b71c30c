import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { packageRoot } from '../../src/package-root.ts'
import type { CliName } from './spawn-prherald.ts'

const ROOT = packageRoot()

export interface CliResult {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * Runs a built CLI (dist/) as a child process without blocking the event loop, so that fakes served by this
 * same test process can answer it (runCli's spawnSync would deadlock against them).
 */
export function runCliAsync(name: CliName, args: string[], env: Env, cwd = ROOT): Promise<CliResult> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli', `${name}.js`), ...args], {
    cwd, env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

export interface RunningCli {
  child: ReturnType<typeof spawn>
  /** stdout and stderr so far, interleaved by arrival. */
  output(): string
  exited: Promise<number | null>
}

/** Starts a built CLI and leaves it running (the server with arguments, which spawnServer does not take). */
export function spawnCli(name: CliName, args: string[], env: Env, cwd = ROOT): RunningCli {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli', `${name}.js`), ...args], {
    cwd, env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  return { child, output: () => output, exited }
}
