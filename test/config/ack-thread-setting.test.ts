import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { PrheraldError } from '../../src/errors.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** `server.ack_thread`: a boolean, off by default, refused with the key and the file when it is anything else. */
let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

function load(server: string) {
  writeFileSync(join(dir.path, 'config.yaml'), `git_provider: github\n${server ? `server:\n${server}` : ''}mappings:\n  acme:\n    api:\n      channel: C0123ABC\n`)
  return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml') }, dir.path)
}

describe('server.ack_thread', () => {
  it('is off by default, and read as given', () => {
    expect(load('').ackThread).toBe(false)
    expect(load('  ack_thread: true\n').ackThread).toBe(true)
    expect(load('  ack_thread: false\n').ackThread).toBe(false)
  })

  it('refuses anything but a boolean, naming the file and the key', () => {
    let refused: unknown
    try {
      load('  ack_thread: "yes"\n')
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(PrheraldError)
    expect((refused as PrheraldError).message).toContain(join(dir.path, 'config.yaml'))
    expect((refused as PrheraldError).message).toMatch(/server\.ack_thread: expected (a )?boolean/)
  })
})
