import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * What someone who just ran the README's first two commands sees is explained where they read them, before the
 * first heading: npm's EBADENGINE warnings on an older Node, and how long `npm test` takes.
 */
const README = readFileSync(join(packageRoot(), 'README.md'), 'utf8')
const top = README.slice(0, README.indexOf('\n## '))

describe('the README\'s first commands', () => {
  it('says what npm ci\'s EBADENGINE warnings on an older Node mean, and that the install works', () => {
    expect(top).toContain('EBADENGINE')
    expect(top).toMatch(/warnings; the install\s+works/)
  })

  it('says how long npm test takes and what it prints', () => {
    expect(top).toMatch(/`npm test`[\s\S]*about \d+ minutes/)
    expect(top).toContain('Tests: N passed, N failed')
  })
})
