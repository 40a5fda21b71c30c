import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { unsupportedNode } from '../helpers/unsupported-node.ts'

/**
 * `npm link` (docs/getting-started.md, part 2 step 1), in a copy of the clone (what the build reads and
 * dist/, timestamps kept; node_modules linked, not copied) into a throw-away global prefix, so that neither
 * this clone's dist/ nor the machine's global bins change. Its build (the `prepare` script) must find dist/
 * current and write nothing, and `npm link --ignore-scripts`, which the guide shows, must print nothing but
 * npm's one-line summary. What it links then runs from a shell whose `node` is older than prherald supports.
 */
const ROOT = packageRoot()
const clone = makeTempDir()
const prefix = makeTempDir()
afterAll(() => {
  clone.remove()
  prefix.remove()
})

const withoutNpmSettings = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))
const npm = (args: string[]) => spawnSync('npm', args, {
  cwd: clone.path, encoding: 'utf8', timeout: 240_000,
  // Not the npm settings of the npm that runs the tests (npm test sets npm_config_* for its scripts).
  // On the Node that runs the tests, as a user on a supported line would (CI's second run starts vitest with
  // Node 24 directly, so the machine's older node would otherwise come first on PATH and npm warn about engines).
  env: { ...withoutNpmSettings, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_prefix: prefix.path, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
})

describe('npm link', () => {
  it('puts the commands on PATH without rebuilding a current dist/; --ignore-scripts prints no warning', () => {
    for (const path of ['src', 'machines', 'scripts', 'bench', 'test/helpers', 'migrations', 'dist', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(ROOT, path), join(clone.path, path), { recursive: true, preserveTimestamps: true })
    }
    symlinkSync(join(ROOT, 'node_modules'), join(clone.path, 'node_modules'))
    // Whatever state this clone's dist/ is in, the copy's is current after this.
    expect(npm(['run', 'build']).status).toBe(0)
    const built = join(clone.path, 'dist/src/cli/server.js')
    const builtAt = statSync(built).mtimeMs

    const linked = npm(['link'])
    expect(linked.status, linked.stderr).toBe(0)
    expect(existsSync(join(prefix.path, 'bin/prherald-server'))).toBe(true)
    expect(statSync(built).mtimeMs).toBe(builtAt)
    // The one thing plain `npm link` prints besides its summary: npm 11's note on the clone's own prepare script (explained in the guide).
    expect(linked.stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn install-scripts'))).toEqual([])

    const quiet = npm(['link', '--ignore-scripts'])
    expect(quiet.status).toBe(0)
    expect(quiet.stderr).toBe('')
    expect(quiet.stdout.trim()).toMatch(/^(added|changed|up to date).*\d/)
    expect(statSync(built).mtimeMs).toBe(builtAt)

    // From another directory, through npm's symlink, started by the Node 20 first on PATH: on the Node npm ci installed.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }
    const version = Object.entries(manifest.optionalDependencies).find(([name]) => name.startsWith('node-'))?.[1]
    const shell = spawnSync('sh', ['-c', 'node --version && prherald-config --version'], {
      cwd: prefix.path, encoding: 'utf8', timeout: 20_000,
      env: { HOME: prefix.path, PATH: [join(prefix.path, 'bin'), dirname(unsupportedNode()), '/usr/bin', '/bin'].join(delimiter) },
    })
    expect({ status: shell.status, stderr: shell.stderr }).toEqual({ status: 0, stderr: '' })
    expect(shell.stdout).toMatch(new RegExp(`^v20\\..*\\nprherald-config/.* node-v${version}\\n$`))
  }, 300_000)
})
