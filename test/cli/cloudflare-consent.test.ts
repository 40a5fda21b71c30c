import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cloudflareConsent } from '../../scripts/cloudflare-consent.ts'
import { packageRoot } from '../../src/package-root.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** `npm run dev -- --tunnel` asks before cloudflared is downloaded, as docs/getting-started.md says it does. */
const dir = makeTempDir()
afterAll(() => dir.remove())

describe('--tunnel asks for Cloudflare\'s terms', () => {
  const questions: string[] = []
  const ask = (answer: string) => async (question: string) => { questions.push(question); return answer }

  it('asks on a terminal, and only a yes accepts', async () => {
    expect(await cloudflareConsent({ env: {}, interactive: true, installed: false, ask: ask('y') })).toBe(true)
    expect(await cloudflareConsent({ env: {}, interactive: true, installed: false, ask: ask('') })).toBe(false)
    expect(await cloudflareConsent({ env: {}, interactive: true, installed: false, ask: ask('no') })).toBe(false)
    expect(questions).toHaveLength(3)
    expect(questions[0]).toContain('https://www.cloudflare.com/website-terms/')
  })

  it('asks nothing when cloudflared is there or the notice was accepted in the environment', async () => {
    const before = questions.length
    expect(await cloudflareConsent({ env: {}, interactive: false, installed: true, ask: ask('n') })).toBe(true)
    expect(await cloudflareConsent({ env: { UNTUN_ACCEPT_CLOUDFLARE_NOTICE: '1' }, interactive: false, installed: false, ask: ask('n') })).toBe(true)
    expect(questions).toHaveLength(before)
  })

  it('where nobody can answer, npm run dev -- --tunnel stops with what to do and downloads nothing', () => {
    // TMPDIR points at an empty directory: no cloudflared there, and none may appear.
    const run = spawnSync(process.execPath, [join(packageRoot(), 'dist/scripts/dev.js'), '--tunnel', '--port', '0'], {
      cwd: dir.path, env: { PATH: process.env.PATH, TMPDIR: dir.path }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000,
    })
    const output = run.stdout + run.stderr
    expect(run.status).not.toBe(0)
    expect(output).toContain('nobody can answer here (not a terminal)')
    expect(output).toContain('UNTUN_ACCEPT_CLOUDFLARE_NOTICE=1')
    expect(output).not.toContain('Starting cloudflared tunnel')
    expect(output).not.toMatch(/\n\s+at /)
    expect(existsSync(join(dir.path, 'node-untun'))).toBe(false)
  })
})
