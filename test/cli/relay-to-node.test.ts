import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { unsupportedNode } from '../helpers/unsupported-node.ts'

/**
 * A command started by Node 20 runs on the Node npm ci installed, in a child (Node 20 has no process.execve):
 * the child's output, exit status and signal death are the command's; a Ctrl-C (SIGINT to the whole process
 * group, as a terminal sends it) reaches the child once; a SIGTERM sent to the command alone reaches the child.
 */
const guard = pathToFileURL(join(packageRoot(), 'dist/src/cli/require-supported-node.js')).href
// Counts SIGINTs and reports them 300 ms after the first (a forwarded copy arrives within a few ms).
const COMMAND = `import ${JSON.stringify(guard)}
let sigints = 0
process.on('SIGINT', () => { if (sigints++ === 0) setTimeout(() => { console.log('sigints', sigints); process.exit(3) }, 300) })
process.on('SIGTERM', () => { console.log('sigterm'); process.removeAllListeners('SIGTERM'); process.kill(process.pid, 'SIGTERM') })
console.log('ready', process.versions.node, process.argv.slice(2).join(' '))
setInterval(() => {}, 1000)
`

let dir: ReturnType<typeof makeTempDir> | undefined
let command: ChildProcess | undefined
afterEach(() => {
  if (command?.exitCode === null && command.signalCode === null) process.kill(-command.pid!, 'SIGKILL')
  dir?.remove()
  dir = command = undefined
})

function start(): { output: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  dir = makeTempDir()
  const file = join(dir.path, 'command.js')
  writeFileSync(file, COMMAND)
  // A process group of its own, as a shell's job is: the group signal below is the terminal's Ctrl-C.
  command = spawn(unsupportedNode(), [file, 'an', 'argument'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  command.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  command.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => command!.once('close', (code, signal) => resolve({ code, signal })))
  return { output: () => output, exited }
}

describe('a command started by an unsupported Node', () => {
  it('runs on the installed Node with its arguments; Ctrl-C reaches it once, every time; its exit status is the command\'s', async () => {
    for (let round = 0; round < 3; round++) {
      const run = start()
      await waitFor('the command to start', () => run.output().includes('ready'), 10_000)
      expect(run.output()).toMatch(/^ready 2[2-9]\.\d+\.\d+ an argument$/m)
      process.kill(-command!.pid!, 'SIGINT')
      expect(await run.exited).toEqual({ code: 3, signal: null })
      expect(run.output()).toContain('sigints 1\n')
      dir?.remove()
    }
  })

  it('passes a SIGTERM sent to it alone on, and dies of the signal the command died of', async () => {
    const run = start()
    await waitFor('the command to start', () => run.output().includes('ready'), 10_000)
    command!.kill('SIGTERM')
    expect(await run.exited).toEqual({ code: null, signal: 'SIGTERM' })
    expect(run.output()).toContain('sigterm\n')
  })
})
