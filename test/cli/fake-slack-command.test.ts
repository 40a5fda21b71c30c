import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * `npm run fake-slack` (docs/getting-started.md): a stand-in Slack the real commands run against. The README's
 * quick start, `--channel '#pull-requests'`, finds its channel there; a token other than the one it prints is
 * refused, as Slack refuses it.
 */
const ROOT = packageRoot()
let fake: ChildProcess | undefined
let dir: ReturnType<typeof makeTempDir> | undefined
afterEach(async () => {
  if (fake && fake.exitCode === null) {
    fake.kill('SIGTERM')
    await new Promise((resolve) => fake!.once('exit', resolve))
  }
  dir?.remove()
  fake = dir = undefined
})

async function startFake(): Promise<{ env: Record<string, string>; output: () => string }> {
  fake = spawn(process.execPath, [join(ROOT, 'dist/scripts/fake-slack.js'), '--port', '0'], { cwd: ROOT, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  fake.stdout!.on('data', (c: Buffer) => { output += c.toString() })
  fake.stderr!.on('data', (c: Buffer) => { output += c.toString() })
  await waitFor('the fake to print its exports', () => /^export SLACK_BOT_TOKEN=/m.test(output), 10_000)
  // The lines it prints are the ones a user pastes: take the variables from them.
  const env = Object.fromEntries([...output.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]))
  return { env, output: () => output }
}

const setup = (env: Record<string, string>, cwd: string) => runCliAsync('setup', ['--yes', '--provider', 'bitbucket', '--channel', '#pull-requests',
  '--repository', 'acme/api', '--public-url', 'https://prherald.example.com'], env, cwd)

describe('npm run fake-slack', () => {
  it('prints the exports; with them the README\'s prherald-setup finds #pull-requests', async () => {
    const { env, output } = await startFake()
    expect(Object.keys(env)).toEqual(['SLACK_API_URL', 'SLACK_BOT_TOKEN'])
    dir = makeTempDir()
    const result = await setup(env, dir.path)
    expect(result.stderr).not.toContain('invalid_auth')
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(readFileSync(join(dir.path, 'config.yaml'), 'utf8')).toContain('C0PULLREQ01')
    // The stand-in's address is written beside its token: prherald-smoke in another terminal reaches it too.
    expect(readFileSync(join(dir.path, '.env'), 'utf8')).toContain(`SLACK_API_URL=${env.SLACK_API_URL}\n`)
    expect(output()).toMatch(/^\[fake slack\] users\.conversations/m)
    // Its token carries the manifest's scopes (docs/slack-app.md), so the doctor finds none missing there.
    const auth = await fetch(`${env.SLACK_API_URL}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${env.SLACK_BOT_TOKEN}` } })
    const manifest = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(readFileSync(join(ROOT, 'docs/slack-app.md'), 'utf8'))![1]!) as { oauth_config: { scopes: { bot: string[] } } }
    expect(auth.headers.get('x-oauth-scopes')?.split(',').sort()).toEqual([...manifest.oauth_config.scopes.bot].sort())
  })

  it('answers invalid_auth to any other token', async () => {
    const { env } = await startFake()
    dir = makeTempDir()
    const result = await setup({ ...env, SLACK_BOT_TOKEN: 'xoxb-not-the-one' }, dir.path)
    expect(result.status).not.toBe(0)
    expect(result.stdout + result.stderr).toContain('invalid_auth')
    const direct = await fetch(`${env.SLACK_API_URL}auth.test`, { method: 'POST', headers: { authorization: 'Bearer xoxb-other' } })
    expect(await direct.json()).toEqual({ ok: false, error: 'invalid_auth' })
  })

  it('--help prints its usage and starts nothing', async () => {
    const help = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, 'dist/scripts/fake-slack.js'), '--help'], { cwd: ROOT, env: { PATH: process.env.PATH } })
      let out = ''
      child.stdout.on('data', (c: Buffer) => { out += c.toString() })
      child.once('close', (code) => resolve(`${code}\n${out}`))
    })
    expect(help).toMatch(/^0\nUsage: npm run fake-slack/)
  })
})
