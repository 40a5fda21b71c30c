import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect } from 'vitest'
import { loadSettings } from '../../src/config/load-config.ts'
import type { Settings } from '../../src/config/settings.ts'
import { PrheraldError } from '../../src/errors.ts'
import { makeTempDir } from './temp-dir.ts'

/**
 * config.yaml in a directory of its own for each test of the file: `load` reads a text as every command reads
 * its file (PRHERALD_CONFIG_FILE, then the environment given), `refusal` is the message a refused one gets.
 */
export function configFile() {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => { dir = makeTempDir() })
  afterEach(() => dir.remove())

  const load = (yaml: string, env: Record<string, string> = {}): Settings => {
    writeFileSync(join(dir.path, 'config.yaml'), yaml)
    return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'), ...env }, dir.path)
  }
  const refusal = (yaml: string, env: Record<string, string> = {}): string => {
    try {
      load(yaml, env)
    } catch (error) {
      expect(error).toBeInstanceOf(PrheraldError)
      return (error as PrheraldError).message
    }
    throw new Error('expected the configuration to be refused')
  }
  return { load, refusal }
}
