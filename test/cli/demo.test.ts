import { afterEach, describe, expect, it } from 'vitest'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * `npm run demo` and `npm run demo:deliver`, as docs/getting-started.md walks through them: each demo
 * starts from an empty database of its own, and a second demo:deliver is answered as duplicate deliveries,
 * so nothing new reaches the (fake) Slack.
 */
const ROOT = packageRoot()

interface Demo { child: ChildProcess; output(): string; exited: Promise<number | null> }

function startDemo(port: number): Demo {
  // A process group of its own, as a terminal's foreground job is: Ctrl-C is a SIGINT to the group.
  const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo.js')], {
    cwd: ROOT, env: { PATH: process.env.PATH, PRHERALD_LISTEN: `127.0.0.1:${port}` }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  })
  let output = ''
  child.stdout!.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr!.on('data', (c: Buffer) => { output += c.toString() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Resolves when `test` holds for the output; the demo's own events drive it, not a clock. */
function until(demo: Demo, test: (output: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (test(demo.output())) {
        demo.child.stdout!.off('data', check)
        resolve()
      }
    }
    demo.child.stdout!.on('data', check)
    void demo.exited.then(() => reject(new Error(`demo exited:\n${demo.output()}`)))
    check()
  })
}

function deliver(port: number): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), `http://127.0.0.1:${port}`], { cwd: ROOT, env: { PATH: process.env.PATH } })
  let output = ''
  child.stdout.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr.on('data', (c: Buffer) => { output += c.toString() })
  return new Promise((resolve) => child.once('close', () => resolve(output)))
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

const slackCalls = (output: string) => output.split('\n').filter((l) => l.startsWith('[fake slack] chat.') || l.startsWith('[fake slack] reactions.'))
const databaseOf = (output: string) => /\[demo\] throw-away database file:(\S+)/.exec(output)?.[1] ?? ''

let demo: Demo | undefined
afterEach(async () => {
  if (demo && demo.child.exitCode === null && demo.child.signalCode === null) {
    process.kill(-demo.child.pid!, 'SIGKILL')
    await demo.exited
  }
  demo = undefined
})

/** Ctrl-C in the demo's terminal: SIGINT to its whole process group, the demo and the server it started. */
async function stop(running: Demo): Promise<number | null> {
  process.kill(-running.child.pid!, 'SIGINT')
  return running.exited
}

describe('npm run demo', () => {
  it('a repeated demo:deliver is deduplicated by delivery id, and each demo starts from a fresh database that it removes', async () => {
    const port = await freePort()
    const lock = join(ROOT, 'config.lock')
    const lockBefore = existsSync(lock) ? statSync(lock).mtimeMs : undefined
    demo = startDemo(port)
    await until(demo, (o) => /listening/.test(o))
    const database = databaseOf(demo.output())
    expect(database.startsWith(tmpdir())).toBe(true)
    expect(existsSync(database)).toBe(true)

    const first = await deliver(port)
    expect(first.match(/-> 200 \{"status":"accepted"\}/g)).toHaveLength(3)
    // The closed pull request's reaction is the story's last Slack call.
    await until(demo, (o) => /reactions\.add .*name="x"/.test(o))
    const calls = slackCalls(demo.output())
    expect(calls.filter((l) => l.includes('chat.postMessage'))).toHaveLength(1)

    const second = await deliver(port)
    expect(second.match(/-> 200 \{"status":"ignored","reason":"duplicate_delivery"\}/g)).toHaveLength(3)
    expect(slackCalls(demo.output())).toEqual(calls)

    await stop(demo)
    expect(existsSync(database)).toBe(false)
    // The server's config.lock went beside the demo's copy of config.yaml, not into the clone.
    expect(existsSync(lock) ? statSync(lock).mtimeMs : undefined).toBe(lockBefore)

    // A new demo remembers nothing: the same deliveries are new to it, and the message is posted again.
    demo = startDemo(port)
    await until(demo, (o) => /listening/.test(o))
    expect(databaseOf(demo.output())).not.toBe(database)
    const again = await deliver(port)
    expect(again.match(/-> 200 \{"status":"accepted"\}/g)).toHaveLength(3)
    await until(demo, (o) => /chat\.postMessage/.test(o))
    await stop(demo)
  })

  it('Ctrl-C stops the server once, after its drain, every time', async () => {
    const port = await freePort()
    for (let round = 0; round < 4; round++) {
      demo = startDemo(port)
      await until(demo, (o) => /listening/.test(o))
      expect(await stop(demo)).toBe(0)
      expect(demo.output()).toMatch(/stopped.*drained=true/)
    }
  })

  it('passes on a SIGTERM sent to the demo alone, and not a SIGINT: the terminal sends that to the server itself', async () => {
    const port = await freePort()
    demo = startDemo(port)
    await until(demo, (o) => /listening/.test(o))
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    // The demo handles its signals in the order they came (Linux delivers pending ones lowest number first,
    // SIGINT before SIGTERM): had it forwarded the SIGINT, the server would have logged it before the SIGTERM.
    demo.child.kill('SIGINT')
    demo.child.kill('SIGTERM')
    expect(await demo.exited).toBe(0)
    expect(demo.output().match(/signal received.*/g)).toEqual([expect.stringMatching(/SIGTERM/)])
    expect(demo.output()).toMatch(/stopped.*drained=true/)
  })

  it('demo:deliver -- --help prints its usage and sends nothing; an unknown option is refused', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), ...args], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 })
    const help = run(['--help'])
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' })
    expect(help.stdout).toMatch(/^Usage: npm run demo:deliver \[-- <url>\]\n/)
    const bogus = run(['--bogus'])
    expect({ status: bogus.status, stdout: bogus.stdout, stderr: bogus.stderr }).toEqual({ status: 2, stdout: '', stderr: 'demo:deliver: unknown option --bogus; see npm run demo:deliver -- --help\n' })
  })

  it('demo:deliver says so, once, when the server checks another secret (401) or is not prherald', async () => {
    const port = await freePort()
    // The server's secret is not the one demo:deliver finds (its environment has none, and no .env).
    const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo.js')], {
      cwd: ROOT, env: { PATH: process.env.PATH, PRHERALD_LISTEN: `127.0.0.1:${port}`, GITHUB_WEBHOOK_SECRET: 'another-secret-6f1c2a9e' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => { output += c.toString() })
    demo = { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) }
    await until(demo, (o) => /listening/.test(o))
    const refused = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), `http://127.0.0.1:${port}`], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 })
    expect(refused.status).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/refused the signature \(401\): it checks another webhook secret than the one used here \(the demo's "demo-webhook-secret"\)/)])

    const other = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`
      const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const deliver = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), url], { cwd: ROOT, env: { PATH: process.env.PATH } })
        let stderr = ''
        deliver.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
        deliver.once('close', (status) => resolve({ status, stderr }))
      })
      expect(result.status).toBe(1)
      expect(result.stderr.trimEnd().split('\n')).toEqual([`demo:deliver: ${url} answered 404 to POST /webhook/github: not a prherald that takes GitHub deliveries; pass the URL npm run demo or npm run dev printed: npm run demo:deliver http://127.0.0.1:<port>`])
    } finally {
      await new Promise((resolve) => other.close(resolve))
    }
  })

  it('demo:deliver with no server answering says, in one line, to start npm run demo first, and exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const result = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), url], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 })
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`no prherald answers at ${url} (ECONNREFUSED)`)
    expect(lines[0]).toContain('start it first with npm run demo')
  })
})
