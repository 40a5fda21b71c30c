import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { freePort } from '../../test/helpers/free-port.ts'
import { deliver } from '../../test/helpers/signed-delivery.ts'
import { killServer, spawnServer } from '../../test/helpers/spawn-prherald.ts'
import type { Samples } from './operator-recipes.ts'
import { SAMPLE_WEBHOOK_SECRET, startSampleSession } from './sample-session.ts'

const ROOT = packageRoot()

/** Waits until `output()` has not grown for `quietMs` (the server finished reacting), at most `limitMs`. */
async function settled(output: () => string, quietMs = 1500, limitMs = 15_000): Promise<string> {
  const start = Date.now()
  let last = output()
  let lastChange = Date.now()
  while (Date.now() - lastChange < quietMs && Date.now() - start < limitMs) {
    await new Promise((r) => setTimeout(r, 100))
    if (output() !== last) [last, lastChange] = [output(), Date.now()]
  }
  return last
}

async function until(output: () => string, pattern: RegExp, what: string, limitMs = 20_000): Promise<void> {
  const start = Date.now()
  while (!pattern.test(output())) {
    if (Date.now() - start > limitMs) throw new Error(`${what} did not happen within ${limitMs} ms:\n${output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** getting-started.md part 1, run as written: `npm run demo`, then `/healthz` and `npm run demo:deliver` twice. */
export async function demoSamples(): Promise<Samples> {
  const samples: Samples = new Map()
  const s = await startSampleSession()
  const port = await freePort()
  // The demo's own config, copied: its config.lock must not come from (or land beside) the clone's config.yaml.
  const env = { PATH: process.env.PATH, TZ: 'UTC', TMPDIR: '/tmp', PRHERALD_CONFIG_FILE: join(s.dir, 'config.yaml'), PRHERALD_LISTEN: `:${port}` }
  const demo = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  demo.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8') })
  demo.stderr.on('data', (chunk: Buffer) => { out += chunk.toString('utf8') })
  const exited = new Promise((resolve) => demo.once('close', resolve))
  try {
    await until(() => out, /listening/, 'the demo listening')
    const slackPort = /fake Slack at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
    s.variables.literals.push([String(port), '8080'], ...(slackPort ? [[slackPort, '35575'] as const] : []))
    samples.set('demo-start', s.normalise(out))
    const url = `http://127.0.0.1:${port}`
    const health = await (await fetch(`${url}/healthz`)).text()
    const deliverOnce = async () => {
      const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo-deliver.js'), url], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'inherit'] })
      let answers = ''
      child.stdout.on('data', (chunk: Buffer) => { answers += chunk.toString('utf8') })
      await new Promise((resolve) => child.once('close', resolve))
      return answers
    }
    const before = out.length
    samples.set('demo-deliver', s.normalise(`${health}\n${await deliverOnce()}`))
    samples.set('demo-slack', s.normalise((await settled(() => out)).slice(before)))
    samples.set('demo-redeliver', s.normalise(await deliverOnce()))
  } finally {
    // SIGTERM: the demo passes that on; a SIGINT to it alone it leaves to the terminal, which sends one to the server too.
    demo.kill('SIGTERM')
    await exited
    await s.close()
  }
  return samples
}

/**
 * A server with JSON logs (operations.md: a normal start, an ignored ping) and `prherald-smoke --reactions`
 * against it, the way an operator proves a deployment.
 */
export async function serverSamples(): Promise<Samples> {
  const samples: Samples = new Map()
  const s = await startSampleSession()
  const config = join(s.dir, 'config.yaml')
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^( +log_format:) pretty$/m, '$1 json'))
  const port = await freePort()
  s.variables.literals.push([String(port), '8080'])
  const url = `http://127.0.0.1:${port}`
  const server = await spawnServer({ ...s.env, PRHERALD_LISTEN: `:${port}` }, s.dir)
  try {
    samples.set('server-start-json', s.normalise(`${server.lines.join('\n')}\n`))
    const ping = await deliver(url, 'github', {
      event: 'ping', payload: { zen: 'Design for failure.', hook_id: 1 }, secret: SAMPLE_WEBHOOK_SECRET,
      deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    })
    samples.set('ping-answer', s.normalise(`${await ping.text()}\n`))
    await until(() => server.lines.join('\n'), /"reason":"ping"/, 'the ignored ping logged')
    samples.set('ignored-ping-log', s.normalise(`${server.lines.filter((l) => l.includes('"reason":"ping"')).join('\n')}\n`))
    samples.set('smoke', await s.run('prherald-smoke --reactions', { env: { PRHERALD_PUBLIC_URL: url } }))
  } finally {
    await killServer(server)
    await s.close()
  }
  return samples
}
