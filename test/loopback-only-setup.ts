import { afterAll, afterEach } from 'vitest'
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { randomUUID } from 'node:crypto'
import { CLOSED_API_URLS } from './helpers/closed-api-urls.ts'
import { noteRefusal, refuseNonLoopback, takeRefusals } from './helpers/loopback-only.ts'
import { staleBuildOutputs } from './helpers/stale-build-outputs.ts'
import { packageRoot } from '../src/package-root.ts'

/**
 * Every test file runs with this (vitest.config.ts, setupFiles). Nothing a test starts reaches beyond
 * 127.0.0.1, and a test that tries fails, instead of passing as if the machine were offline:
 * - in this process, non-loopback connects are refused (test/helpers/loopback-only.ts);
 * - every Node process a test starts loads the same guard (NODE_OPTIONS=--import) and reports to a file
 *   this setup reads after each test (its API URLs are the test's to give: testEnv starts from closed ones,
 *   and one set here would override what a command reads from its .env);
 * - this process's own environment starts from the same closed API URLs;
 * - a Node process started from a dist/ older than its source is refused with the fix (`npm run build`):
 *   an end-to-end test would otherwise check yesterday's code.
 */
const ROOT = packageRoot()
const PRELOAD = join(ROOT, 'dist/test/helpers/loopback-only-preload.js')
const LOG = join(tmpdir(), `prherald-network-${process.pid}-${randomUUID()}.log`)

refuseNonLoopback(noteRefusal)
for (const [name, url] of Object.entries(CLOSED_API_URLS)) process.env[name] ??= url

type SpawnLike = (...args: unknown[]) => unknown
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, SpawnLike>
for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']) {
  const original = childProcess[name]
  if (original === undefined) continue
  childProcess[name] = function guardedSpawn(this: unknown, ...args: unknown[]) {
    if (name === 'fork' || isNode(args[0])) guardNodeChild(args)
    return original.apply(this, args)
  }
}
syncBuiltinESMExports()

function isNode(command: unknown): boolean {
  return command === process.execPath || (typeof command === 'string' && /^node(\.exe)?$/.test(basename(command)))
}

/** Adds the guard to a Node child's options (spawn(file, args?, options?, callback?)), in place. */
function guardNodeChild(args: unknown[]): void {
  const at = Array.isArray(args[1]) ? 2 : 1
  const given = args[at]
  const options = typeof given === 'object' && given !== null ? { ...(given as { env?: NodeJS.ProcessEnv }) } : {}
  if (typeof given !== 'object' || given === null) args.splice(at, 0, options)
  else args[at] = options
  refuseStaleDist([...(Array.isArray(args[1]) ? (args[1] as unknown[]) : [])])
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) }
  if (existsSync(PRELOAD)) env.NODE_OPTIONS = [env.NODE_OPTIONS, `--import=${pathToFileURL(PRELOAD).href}`].filter(Boolean).join(' ')
  // A test of this guard names its own file.
  env.PRHERALD_TEST_NETWORK_LOG ??= LOG
  options.env = env
}

let distChecked = false
function refuseStaleDist(args: unknown[]): void {
  if (distChecked || !args.some((a) => typeof a === 'string' && a.startsWith(join(ROOT, 'dist')))) return
  const stale = staleBuildOutputs(ROOT)
  if (stale.length > 0) {
    throw new Error(`dist/ is older than its source (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''}): run \`npm run build\` first, end-to-end tests run dist/`)
  }
  distChecked = true
}

let seen = 0
afterEach(() => {
  const fromChildren = existsSync(LOG) ? readFileSync(LOG, 'utf8').split('\n').filter(Boolean) : []
  const fresh = [...takeRefusals().map((target) => `this test process tried to connect to ${target}`), ...fromChildren.slice(seen)]
  seen = fromChildren.length
  if (fresh.length > 0) throw new Error(`Tests reach only 127.0.0.1 (fakes through SLACK_API_URL, GITHUB_API_URL, …), but:\n${fresh.join('\n')}`)
})

afterAll(() => {
  if (existsSync(LOG) && statSync(LOG).isFile()) rmSync(LOG)
})
