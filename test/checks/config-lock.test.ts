import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { validateConfig } from '../../src/checks/validate-config.ts'
import { github } from '../../src/hosts/github/index.ts'
import type { Mappings } from '../../src/config/schema.ts'
import { emptyLock, hostLock, readConfigLock, writeConfigLock } from '../../src/lock/config-lock.ts'
import { canonicalJson, entryHash } from '../../src/lock/entry-hash.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

describe('entry hash', () => {
  const route = (mappings: Mappings, repo = 'api') => resolveRoute(mappings, 'acme', repo)!

  it('is the same for equal input in any key order, and canonical JSON sorts keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"e":0,"f":1}]},"b":1}')
    const a = route({ acme: { api: { channel: 'C0000000001', paths: { 'x/': { channel: 'C0000000002' }, 'y/': { channel: 'C0000000003' } } } } })
    const b = route({ acme: { api: { paths: { 'y/': { channel: 'C0000000003' }, 'x/': { channel: 'C0000000002' } }, channel: 'C0000000001' } } })
    expect(entryHash('github', a, false)).toBe(entryHash('github', b, false))
    expect(entryHash('github', a, false)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('changes with the channel, a path-rule channel, the provider and whether the token is set, but not with mentions', () => {
    const base = entryHash('github', route({ acme: { api: { channel: 'C0000000001' } } }), false)
    expect(entryHash('github', route({ acme: { api: { channel: 'C0000000009' } } }), false)).not.toBe(base)
    expect(entryHash('github', route({ acme: { api: { channel: 'C0000000001', paths: { 'x/': { channel: 'C0000000002' } } } } }), false)).not.toBe(base)
    expect(entryHash('bitbucket', route({ acme: { api: { channel: 'C0000000001' } } }), false)).not.toBe(base)
    expect(entryHash('github', route({ acme: { api: { channel: 'C0000000001' } } }), true)).not.toBe(base)
    expect(entryHash('github', route({ acme: { api: { channel: 'C0000000001', mentions: ['<@U0123ABCD>'] } } }), false)).toBe(base)
  })
})

describe('config.lock file', () => {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => { dir = makeTempDir() })
  afterEach(() => dir.remove())

  it('is written atomically with mode 0600, leaving no temp file, and read back', () => {
    const file = join(dir.path, 'config.lock')
    writeFileSync(file, 'old', { mode: 0o644 })
    const lock = { version: 2 as const, hosts: { github: { entries: { 'acme/api': { hash: 'ab'.repeat(32), validated_at: '2026-01-01T00:00:00.000Z' } } } } }
    writeConfigLock(file, lock)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir.path)).toEqual(['config.lock'])
    expect(readConfigLock(file, ['github'])).toEqual({ lock, problem: undefined })
  })

  it('keys entries by host: one owner/repo on two hosts is two entries', () => {
    const file = join(dir.path, 'config.lock')
    const entry = (hash: string) => ({ 'acme/api': { hash: hash.repeat(32), validated_at: '2026-01-01T00:00:00.000Z' } })
    writeConfigLock(file, { version: 2, hosts: { github: { entries: entry('ab') }, gitlab: { entries: entry('cd') } } })
    const { lock } = readConfigLock(file, ['github', 'gitlab'])
    expect(hostLock(lock, 'github').entries['acme/api']?.hash).toBe('ab'.repeat(32))
    expect(hostLock(lock, 'gitlab').entries['acme/api']?.hash).toBe('cd'.repeat(32))
    expect(hostLock(lock, 'bitbucket')).toEqual(emptyLock())
  })

  it('reads a version 1 file (one host, before hosts:) as the single host\'s', () => {
    const file = join(dir.path, 'config.lock')
    const entries = { 'acme/api': { hash: 'ab'.repeat(32), validated_at: '2026-01-01T00:00:00.000Z' } }
    writeFileSync(file, JSON.stringify({ version: 1, entries }))
    expect(readConfigLock(file, ['github'])).toEqual({ lock: { version: 2, hosts: { github: { entries } } }, problem: undefined })
  })

  it('reads a missing file as empty, and a malformed one as empty with the problem named', () => {
    const file = join(dir.path, 'config.lock')
    expect(readConfigLock(file, ['github'])).toEqual({ lock: { version: 2, hosts: {} }, problem: undefined })
    writeFileSync(file, '{"version": 7}')
    const { lock, problem } = readConfigLock(file, ['github'])
    expect(lock).toEqual({ version: 2, hosts: {} })
    expect(problem).toContain('is not a prherald lock file')
  })

  it('fails with the lock code and a fix when the directory is not writable', () => {
    expect(() => writeConfigLock(join(dir.path, 'missing-dir', 'config.lock'), { version: 2, hosts: {} }))
      .toThrow(expect.objectContaining({ code: 'lock', fix: expect.stringContaining('writable') }))
  })
})

describe('validateConfig', () => {
  let slack: FakeSlack
  beforeEach(async () => { slack = await startFakeSlack({ anyChannel: true }) })
  afterEach(async () => slack.close())
  const mappings: Mappings = { acme: { '*': { channel: 'C0000000001' }, api: { channel: 'C0000000002' } } }
  const ctx = (m: Mappings) => ({ host: github, mappings: m, slack: { token: 'xoxb-t', apiUrl: slack.url }, git: undefined })

  it('validates every entry without a lock, then nothing while the lock is current, then only the changed entry', async () => {
    const first = await validateConfig(ctx(mappings), emptyLock(), { gitTokenSet: false, force: false })
    expect(first.ok).toBe(true)
    expect(Object.keys(first.nextLock.entries)).toEqual(['acme/*', 'acme/api'])
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test', 'conversations.info', 'conversations.info'])

    slack.calls.length = 0
    const second = await validateConfig(ctx(mappings), first.nextLock, { gitTokenSet: false, force: false })
    expect(second).toMatchObject({ ok: true, lockChanged: false })
    expect(second.plan.stale).toHaveLength(0)
    expect(slack.calls).toHaveLength(0)

    const changed = { acme: { ...mappings.acme, api: { channel: 'C0000000003' } } }
    const third = await validateConfig(ctx(changed), first.nextLock, { gitTokenSet: false, force: false })
    expect(third.plan.stale.map((s) => s.route.repo)).toEqual(['api'])
    expect(slack.calls.filter((c) => c.method === 'conversations.info').map((c) => c.body.channel)).toEqual(['C0000000003'])
    expect(third.nextLock.entries['acme/*']).toEqual(first.nextLock.entries['acme/*'])

    const forced = await validateConfig(ctx(mappings), first.nextLock, { gitTokenSet: false, force: true })
    expect(forced.plan.stale).toHaveLength(2)
  })

  it('is not ok when a check FAILs', async () => {
    slack.channelErrors.set('C0000000002', 'channel_not_found')
    const outcome = await validateConfig(ctx(mappings), emptyLock(), { gitTokenSet: false, force: false })
    expect(outcome.ok).toBe(false)
  })
})
