import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'

/** docs/architecture.md draws paths through the code: every module it names must exist. */
it('names only modules that exist in docs/architecture.md', () => {
  const root = packageRoot()
  const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
  const named = [...new Set(text.match(/\b(?:src|machines|test)\/[\w./-]+\.ts\b/g) ?? [])]
  expect(named.length).toBeGreaterThan(30)
  expect(named.filter((path) => !existsSync(join(root, path)))).toEqual([])
})
