import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Every CLI goes through src/cli/run-commands.ts: --version, and a command line it does not understand is
 * rejected with one line on stderr and exit status 2 before anything runs. The environment is complete and
 * valid, so a CLI that ignored the bad option would go ahead (the server would start and the database
 * would appear): the checks below would see it.
 */
type CliName = Parameters<typeof runCliAsync>[0]
const CLIS: CliName[] = ['server', 'migrate', 'config', 'doctor', 'reconcile']
const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir()
  writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: 'C0000000001' } } } })
})
afterEach(() => dir.remove())

const run = (name: CliName, args: string[]) => runCliAsync(name, args, testEnv(dir.path, 'github'), dir.path)
const database = () => join(dir.path, 'prherald.db')

function expectUsageError(result: { status: number | null; stdout: string; stderr: string }, name: CliName, text: RegExp): void {
  expect(result.status).toBe(2)
  expect(result.stdout).toBe('')
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(new RegExp(`^prherald-${name}: `))
  expect(lines[0]).toMatch(text)
  expect(lines[0]).toContain(`see prherald-${name} --help`)
}

describe.each(CLIS)('prherald-%s', (name) => {
  it('prints its name and the package version with --version and -v, and runs nothing', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await run(name, [flag])
      expect(result.status).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`^prherald-${name}/${VERSION.replaceAll('.', '\\.')} `))
    }
    expect(existsSync(database())).toBe(false)
  })

  it('rejects an unknown option with one line and exit 2, before doing anything', async () => {
    expectUsageError(await run(name, ['--bogus']), name, /unknown option `--bogus`/i)
    expect(existsSync(database())).toBe(false)
  })
})

describe('unknown options and commands', () => {
  it('prherald-server --port 9999 does not start (the port comes from PRHERALD_LISTEN)', async () => {
    expectUsageError(await run('server', ['--port', '9999']), 'server', /unknown option `--port`/i)
    expect(existsSync(database())).toBe(false)
  })

  it('prherald-server takes no argument, prherald-doctor at most one', async () => {
    expectUsageError(await run('server', ['acme/api']), 'server', /unexpected argument "acme\/api"/)
    expectUsageError(await run('doctor', ['acme/api', 'acme/web']), 'doctor', /unexpected argument "acme\/web"/)
    expectUsageError(await run('reconcile', ['acme/api', 'acme/web']), 'reconcile', /unexpected argument "acme\/web"/)
  })

  it('prherald-config bogus names the unknown command and the real ones', async () => {
    expectUsageError(await run('config', ['bogus']), 'config', /unknown command "bogus"; commands: list, explain, validate, create-webhook/)
  })

  it('an unknown option after a subcommand is rejected too', async () => {
    expectUsageError(await run('config', ['validate', '--bogus']), 'config', /unknown option `--bogus`/i)
    expectUsageError(await run('migrate', ['up', '--bogus']), 'migrate', /unknown option `--bogus`/i)
    expect(existsSync(database())).toBe(false)
  })

  it('a missing or extra argument is a usage error', async () => {
    expectUsageError(await run('config', ['create-webhook']), 'config', /missing required args/)
    expectUsageError(await run('migrate', ['up', 'now']), 'migrate', /unused args: `now`/i)
    expect(existsSync(database())).toBe(false)
  })

  it('no command prints the help and exits 2', async () => {
    const result = await run('config', [])
    expect(result.status).toBe(2)
    expect(result.stdout).toMatch(/^Commands:$/m)
  })

  it('--help and --version still work after a subcommand', async () => {
    const help = await run('config', ['validate', '--help'])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('--force')
    const version = await run('config', ['validate', '--version'])
    expect(version.status).toBe(0)
    expect(version.stdout).toMatch(/^prherald-config\//)
    expect(existsSync(join(dir.path, 'config.lock'))).toBe(false)
  })
})

describe('--config <file>', () => {
  const ALL: CliName[] = ['server', 'migrate', 'config', 'doctor', 'reconcile', 'digest', 'smoke']
  // The working directory's config.yaml maps acme/api; this one, in another directory, maps other/web.
  const elsewhere = () => {
    mkdirSync(join(dir.path, 'team'), { recursive: true })
    return writeConfig(join(dir.path, 'team'), { git_provider: 'github', database: { url: 'file:./team-data/prherald.db' }, mappings: { other: { web: { channel: 'C0000000009' } } } })
  }
  // The variable points at a file that does not exist: only the flag can make the commands work.
  const env = () => ({ ...testEnv(dir.path, 'github'), PRHERALD_CONFIG_FILE: join(dir.path, 'missing.yaml'), PRHERALD_DATABASE_URL: '' })

  it.each(ALL)('prherald-%s --help shows it', async (name) => {
    const help = await run(name, ['--help'])
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^ {2}--config <file> +Configuration file \(default: PRHERALD_CONFIG_FILE, else \.\/config\.yaml\)/m)
  })

  it('config list, doctor and migrate up read the file it names, over PRHERALD_CONFIG_FILE, relative to the working directory', async () => {
    const file = elsewhere()
    const list = await runCliAsync('config', ['list', '--config', 'team/config.yaml'], env(), dir.path)
    expect(list.status).toBe(0)
    expect(list.stdout).toMatch(/^other +web +C0000000009/m)
    expect(list.stdout).not.toMatch(/^acme /m)

    const doctor = await runCliAsync('doctor', ['--config', file], env(), dir.path)
    expect(doctor.stdout).toMatch(new RegExp(`OK +file +${file.replaceAll('.', '\\.')} +parses: git_provider github, 1 mapping entry`))
    expect(doctor.stdout).not.toContain('missing.yaml')

    const migrate = await runCliAsync('migrate', ['up', '--config', file], env(), dir.path)
    expect(migrate.status).toBe(0)
    expect(existsSync(join(dir.path, 'team-data/prherald.db'))).toBe(true)
  })

  it('without a file name it is a usage error', async () => {
    expectUsageError(await run('config', ['list', '--config', '']), 'config', /--config needs a file name/)
    expectUsageError(await run('doctor', ['--config']), 'doctor', /--config needs a file name/)
  })
})
