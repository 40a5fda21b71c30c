import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'
function load(yaml: string, env: Record<string, string> = {}) {
  writeFileSync(join(dir.path, 'config.yaml'), `git_provider: github\n${yaml}${MAPPINGS}`)
  return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'), ...env }, dir.path)
}
const failure = (yaml: string, env: Record<string, string> = {}) => {
  try {
    load(yaml, env)
  } catch (error) {
    return error as { code: string; message: string; fix?: string }
  }
  throw new Error('expected the configuration to be refused')
}

describe('slack.pacing', () => {
  it('defaults to published, reads the file, and PRHERALD_SLACK_PACING overrides it', () => {
    expect(load('').slackPacing).toBe('published')
    expect(load('slack:\n  pacing: off\n').slackPacing).toBe('off')
    expect(load('slack:\n  pacing: off\n', { PRHERALD_SLACK_PACING: 'published' }).slackPacing).toBe('published')
    expect(load('', { PRHERALD_SLACK_PACING: 'off' }).slackPacing).toBe('off')
  })

  it('refuses another value in the file or the environment, naming the key and the choices', () => {
    const inFile = failure('slack:\n  pacing: fast\n')
    expect(inFile.code).toBe('config_invalid')
    expect(inFile.message).toContain('slack.pacing: "fast" is not allowed; use one of "published","off"')
    const inEnv = failure('', { PRHERALD_SLACK_PACING: 'fast' })
    expect(inEnv).toMatchObject({ code: 'config_invalid', fix: 'correct or unset PRHERALD_SLACK_PACING' })
    expect(inEnv.message).toContain('PRHERALD_SLACK_PACING=fast is invalid: use published or off')
  })
})
