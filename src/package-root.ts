import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The installed package's root. Sources run from `src/` under vitest and from `dist/src/` when built,
 * so files shipped beside the code (migrations/) are found by walking up, not by a fixed `../..`.
 */
export function packageRoot(from = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from)
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'prherald') {
      return dir
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`prherald's package.json not found above ${from}`)
    dir = parent
  }
}
