import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

const DIR = join(packageRoot(), '.ci/node-20')
const NODE = join(DIR, 'node_modules/.bin', process.platform === 'win32' ? 'node.cmd' : 'node')

/**
 * A Node.js line prherald does not support (20, from the registry into .ci/node-20 with its own lockfile, as
 * .ci/node-24 is), so that the tests of "a shell whose node is too old" run on every machine, not only where
 * the machine's own node happens to be old. .ci/run installs it; a test file run alone installs it here
 * (about 5 s, once), one worker at a time.
 */
export function unsupportedNode(): string {
  if (existsSync(NODE)) return NODE
  const lock = join(DIR, '.installing')
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} held for 2 minutes: remove it if no install is running`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200)
    }
  }
  try {
    if (!existsSync(NODE)) {
      const npm = spawnSync('npm', ['ci', '--prefix', DIR, '--no-audit', '--no-fund', '--loglevel=error'], { encoding: 'utf8', timeout: 110_000 })
      if (npm.status !== 0 || !existsSync(NODE)) throw new Error(`npm ci --prefix ${DIR} failed: ${npm.stderr || npm.error?.message}`)
    }
    return NODE
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
