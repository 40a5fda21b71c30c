import { readFileSync } from 'node:fs'
import { afterEach, expect, it } from 'vitest'
import { arenaCapEnv, MALLOC_ARENAS, type ArenaCapInputs } from '../../src/memory/malloc-arenas.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** Issue 25: prherald-server caps glibc's malloc arenas itself, by starting again with MALLOC_ARENA_MAX set. */
const linuxGlibc: ArenaCapInputs = { platform: 'linux', env: { PATH: '/bin' }, execArgv: [], glibc: '2.36', canExec: true }

it('sets MALLOC_ARENA_MAX on Linux with glibc, and leaves every other case alone', () => {
  expect(arenaCapEnv(linuxGlibc)).toEqual({ PATH: '/bin', MALLOC_ARENA_MAX: MALLOC_ARENAS })
  expect(arenaCapEnv({ ...linuxGlibc, env: { MALLOC_ARENA_MAX: '4' } })).toBeUndefined() // the operator's value stands, and no loop
  expect(arenaCapEnv({ ...linuxGlibc, glibc: undefined })).toBeUndefined() // musl
  expect(arenaCapEnv({ ...linuxGlibc, platform: 'darwin' })).toBeUndefined()
  expect(arenaCapEnv({ ...linuxGlibc, canExec: false })).toBeUndefined() // Node before 22.15
  expect(arenaCapEnv({ ...linuxGlibc, execArgv: ['--inspect=0'] })).toBeUndefined()
})

let dir: ReturnType<typeof makeTempDir> | undefined
let slack: FakeSlack | undefined
let server: SpawnedServer | undefined
afterEach(async () => {
  await killServer(server)
  await slack?.close()
  dir?.remove()
})

/** The environment the kernel holds for the process now: after an exec, the new one. */
const environOf = (pid: number | undefined) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')

// Linux with glibc, as the container image and CI are.
it('a real server runs with the cap, in the same process, and an operator\'s MALLOC_ARENA_MAX stands', async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: { acme: { '*': { channel: 'C0000000001' } } } })
  const env = testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
  server = await spawnServer(env)
  expect(environOf(server.child.pid)).toContain(`MALLOC_ARENA_MAX=${MALLOC_ARENAS}`)
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200) // the pid that was spawned serves
  await killServer(server)
  server = await spawnServer({ ...env, MALLOC_ARENA_MAX: '4' })
  expect(environOf(server.child.pid)).toContain('MALLOC_ARENA_MAX=4')
})
