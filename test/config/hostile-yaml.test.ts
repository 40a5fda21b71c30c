import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { ALIAS_ALLOWANCE, MAX_DEPTH } from '../../src/config/yaml-to-data.ts'
import { isPrheraldError, type PrheraldError } from '../../src/errors.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** Config files written by scripts (issue 11.2, 12.3): what the YAML library refuses or warns about is a clean config_invalid. */
let dir: ReturnType<typeof makeTempDir>
let warnings: Error[]
const onWarning = (warning: Error) => { warnings.push(warning) }
beforeEach(() => {
  dir = makeTempDir()
  warnings = []
  process.on('warning', onWarning)
})
afterEach(() => {
  process.off('warning', onWarning)
  dir.remove()
})

const file = () => join(dir.path, 'config.yaml')
function load(yaml: string) {
  writeFileSync(file(), yaml)
  return loadSettings({ PRHERALD_CONFIG_FILE: file() }, dir.path)
}
function refusal(yaml: string): PrheraldError {
  let caught: unknown
  try {
    load(yaml)
  } catch (error) {
    caught = error
  }
  expect(isPrheraldError(caught, 'config_invalid'), `expected config_invalid, got ${String(caught)}`).toBe(true)
  const error = caught as PrheraldError
  expect(error.message).toContain(file())
  expect(error.message).not.toMatch(/\n\s+at /) // no stack frames
  expect(error.fix).toBeTruthy()
  return error
}

const repos = (count: number, entry: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => `    repo-${i}:\n${entry(i)}`).join('')

describe('aliases', () => {
  it('one anchor reused by 400 repositories (a shared mentions list) loads, every repository sharing the list', () => {
    const yaml = 'git_provider: github\nmappings:\n  acme:\n    "*":\n      channel: C0000000001\n' +
      '      mentions: &team ["<!subteam^S0123ABCD>", "<@U0123ABCD>"]\n' +
      repos(400, (i) => `      channel: C${String(i + 10).padStart(10, '0')}\n      mentions: *team\n`)
    const settings = load(yaml)
    expect(Object.keys(settings.hosts[0]!.mappings.acme!)).toHaveLength(401)
    expect(settings.hosts[0]!.mappings.acme!['repo-399']!.mentions).toEqual(['<!subteam^S0123ABCD>', '<@U0123ABCD>'])
  })

  it('a billion-laughs document (9 levels of 10 aliases) is refused as config_invalid naming the line', () => {
    const levels = ['a: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for (let n = 1; n <= 9; n++) levels.push(`${String.fromCharCode(97 + n)}: &l${n} [${Array(10).fill(`*l${n - 1}`).join(', ')}]`)
    const error = refusal(`${levels.join('\n')}\ngit_provider: github\nmappings: {}\n`)
    expect(error.message).toMatch(/line \d+, \w(\.\d+)?: aliases expand this file to more than \d+ values/)
    expect(error.message).toContain('billion laughs')
  })

  it('expansion is bounded by a fixed allowance plus the file size, not by a count of aliases', () => {
    // 40 aliases of a 5,000-value list: 200,000 values from a file of about 40 KB.
    const list = Array.from({ length: 5000 }, () => 'x').join(', ')
    const yaml = `big: &big [${list}]\n${Array.from({ length: 40 }, (_, i) => `k${i}: *big`).join('\n')}\n`
    expect(200_000).toBeGreaterThan(ALIAS_ALLOWANCE + yaml.length)
    expect(refusal(yaml).message).toMatch(/line \d+, k\d+: aliases expand this file/)
  })

  it('an alias inside the value it names is refused, not looped over', () => {
    expect(refusal('git_provider: github\nmappings: &m {acme: {api: *m}}\n').message).toMatch(/line 2, mappings\.acme\.api: the alias \*m is inside the value it refers to/)
  })

  it('an alias with no anchor before it names the line', () => {
    expect(refusal('git_provider: github\nmappings:\n  acme: *nowhere\n').message).toMatch(/line 3, mappings\.acme: uses the alias \*nowhere, but no anchor/)
  })
})

describe('duplicate keys', () => {
  it.each([
    ['top level', 'git_provider: github\nmappings: {}\ngit_provider: bitbucket\n', /line 3, git_provider: appears twice in the same map \(first on line 1\)/],
    ['an owner', 'git_provider: github\nmappings:\n  acme:\n    api: {channel: C0000000001}\n  acme:\n    web: {channel: C0000000002}\n', /line 5, mappings\.acme: appears twice in the same map \(first on line 3\)/],
    ['a repository', 'git_provider: github\nmappings:\n  acme:\n    api: {channel: C0000000001}\n    web: {channel: C0000000002}\n    api: {channel: C0000000003}\n', /line 6, mappings\.acme\.api: appears twice in the same map \(first on line 4\)/],
    ['a channel', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0000000001\n      channel: C0000000002\n', /line 6, mappings\.acme\.api\.channel: appears twice in the same map \(first on line 5\)/],
    ['a path rule', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0000000001\n      paths:\n        web/: {channel: C0000000002}\n        web/: {channel: C0000000003}\n', /line 8, mappings\.acme\.api\.paths\.web\/: appears twice in the same map \(first on line 7\)/],
    ['keys equal only as text (1 and "1")', 'git_provider: github\nmappings:\n  acme:\n    1: {channel: C0000000001}\n    "1": {channel: C0000000002}\n', /line 5, mappings\.acme\.1: appears twice/],
  ])('%s is reported with its line and the first one', (_name, yaml, pattern) => {
    expect(refusal(yaml).message).toMatch(pattern)
  })

  it('every duplicate in a large file is listed up to a limit, then counted', () => {
    const yaml = `git_provider: github\nmappings:\n  acme:\n${repos(30, (i) => `      channel: C${String(i + 10).padStart(10, '0')}\n`)}${repos(30, () => '      channel: C0000000001\n')}`
    const message = refusal(yaml).message
    expect(message.match(/appears twice/g)).toHaveLength(20)
  })
})

describe('keys and values that are not plain data', () => {
  it('a list used as a key is config_invalid naming the line, and no process warning is emitted', async () => {
    const message = refusal('git_provider: github\nmappings:\n  ? [acme, globex]\n  : {api: {channel: C0000000001}}\n').message
    expect(message).toMatch(/line 3, mappings: has a map or list as a key/)
    await new Promise((resolve) => setImmediate(resolve)) // process warnings are emitted on the next tick
    expect(warnings.map((w) => w.message)).toEqual([])
  })

  it('a map used as a key, in flow style, likewise', async () => {
    expect(refusal('git_provider: github\nmappings: {{a: 1}: {api: {channel: C0000000001}}}\n').message).toMatch(/line 2, mappings: has a map or list as a key/)
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings).toEqual([])
  })

  it.each([
    ['!!set', 'git_provider: github\nmappings: !!set {a, b}\n', /line 2, mappings: is a YAML !!set value/],
    ['!!binary', 'git_provider: !!binary aGVsbG8=\nmappings: {}\n', /line 1, git_provider: is a YAML !!binary value/],
    ['!!timestamp', 'git_provider: github\nmappings: {a: {b: {channel: !!timestamp 2001-12-14}}}\n', /line 2, mappings\.a\.b\.channel: is a YAML !!timestamp value/],
    ['!!omap', 'git_provider: github\nmappings: !!omap [a: 1]\n', /mappings: is a YAML !!omap value/],
    ['a custom tag', 'git_provider: !provider github\nmappings: {}\n', /line 1, git_provider: is a YAML !provider value/],
  ])('%s is refused with its line', (_name, yaml, pattern) => {
    expect(refusal(yaml).message).toMatch(pattern)
  })

  it('plain core tags (!!str) are plain data and load', () => {
    expect(load('git_provider: !!str github\nmappings:\n  acme:\n    api: {channel: !!str C0000000001}\n').hosts.map((h) => h.id)).toEqual(['github'])
  })

  it('__proto__ and constructor stay ordinary keys (refused by the schema as unknown), never a prototype', () => {
    const message = refusal('git_provider: github\nmappings: {}\n__proto__: {polluted: true}\n').message
    expect(message).toMatch(/__proto__: unknown key/)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('deep nesting', () => {
  it(`nesting past ${MAX_DEPTH} levels is refused with the line, before anything else reads it`, () => {
    const deep = Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')
    expect(refusal(`git_provider: github\nmappings:\n${deep} 1\n`).message).toMatch(new RegExp(`line \\d+, mappings(\\.k\\d+)+: is nested more than ${MAX_DEPTH} levels deep`))
  })

  it('thousands of levels (which exhaust the YAML reader itself) are a clean config_invalid', () => {
    const error = refusal(`git_provider: github\nmappings: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`)
    expect(error.message).toMatch(/line 2: nested too deeply for the YAML reader|is nested more than/)
  })
})

describe('lines in schema errors', () => {
  it('a schema failure names the line of the key', () => {
    expect(refusal('git_provider: github\nmappings:\n  acme:\n    api:\n      channel: general\n').message)
      .toContain('line 5, mappings.acme.api.channel: "general" is not a Slack channel ID')
  })
})

describe('YAML 1.1 documents', () => {
  it('a merge key (<<) is refused with its line, not merged silently', () => {
    expect(refusal('%YAML 1.1\n---\ngit_provider: github\nbase: &b {channel: C0000000001}\nmappings:\n  acme:\n    api:\n      <<: *b\n').message)
      .toMatch(/line 8, mappings\.acme\.api: has a YAML merge key \(<<\)/)
  })

  it('an implicit timestamp is refused with the advice to quote it', () => {
    expect(refusal('%YAML 1.1\n---\ngit_provider: github\nmappings:\n  acme:\n    api: {channel: 2001-12-14}\n').message)
      .toMatch(/line 6, mappings\.acme\.api\.channel: is a timestamp .*; quote it/)
  })
})
