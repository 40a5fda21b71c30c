import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** Issue 11.12: `channel: #pull-requests` unquoted is a YAML comment; the error says so instead of "found null". */
let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

function message(yaml: string): string {
  const file = join(dir.path, 'config.yaml')
  writeFileSync(file, yaml)
  try {
    loadSettings({ PRHERALD_CONFIG_FILE: file }, dir.path)
  } catch (error) {
    expect(isPrheraldError(error, 'config_invalid')).toBe(true)
    return (error as Error).message
  }
  throw new Error('expected the configuration to be refused')
}

const HEAD = 'git_provider: github\nmappings:\n  acme:\n'

describe('a value read as a comment', () => {
  it.each([
    ['a repository channel', `${HEAD}    api:\n      channel: #pull-requests\n`, 'line 5, mappings.acme.api.channel'],
    ['the "*" channel', `${HEAD}    "*":\n      channel: #general\n`, 'line 5, mappings.acme.*.channel'],
    ['one of several channels', `${HEAD}    api:\n      channels:\n        - C0123ABC\n        - #releases\n`, 'line 7, mappings.acme.api.channels.1'],
    ['the id of a channel with its own mentions', `${HEAD}    api:\n      channels:\n        - id: #releases\n          mentions: ["<!here>"]\n`, 'line 6, mappings.acme.api.channels.0.id'],
    ['a path rule channel', `${HEAD}    api:\n      channel: C0123ABC\n      paths:\n        web/:\n          channel: #web-team\n`, 'line 8, mappings.acme.api.paths.web/.channel'],
  ])('%s: names the line, says it was a comment, says to quote it and to use the channel ID', (_name, yaml, where) => {
    const text = message(yaml)
    expect(text).toContain(`${where}: is empty: YAML reads everything from # to the end of the line as a comment`)
    expect(text).toMatch(/quote the value, and use the channel ID rather than its #name, e\.g\. channel: "C0123456789"/)
    expect(text).not.toContain('found null')
  })

  it.each([
    ['a mentions list', `${HEAD}    api:\n      channel: C0123ABC\n      mentions: #platform-team\n`, 'line 6, mappings.acme.api.mentions'],
    ['one mention in a list', `${HEAD}    api:\n      channel: C0123ABC\n      mentions:\n        - "<!here>"\n        - #oncall\n`, 'line 8, mappings.acme.api.mentions.1'],
  ])('%s: says it was a comment and to quote each mention', (_name, yaml, where) => {
    const text = message(yaml)
    expect(text).toContain(`${where}: is empty: YAML reads everything from # to the end of the line as a comment`)
    expect(text).toContain('quote each mention')
  })

  it('an empty channel with no # on its line keeps the plain message', () => {
    const text = message(`${HEAD}    api:\n      channel:\n`)
    expect(text).toContain('mappings.acme.api.channel: expected string, found null')
    expect(text).not.toContain('comment')
  })

  it('a quoted "#name" is a string, and gets the channel-name advice', () => {
    expect(message(`${HEAD}    api:\n      channel: "#pull-requests"\n`)).toContain('"#pull-requests" is a channel name; use the channel ID')
  })
})
