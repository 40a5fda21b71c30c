import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'

/** The README's "Documentation" table is how a newcomer finds the pages: it lists every page in docs/. */
describe("the README's docs table", () => {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Documentation\n')
  const table = readme.slice(start, readme.indexOf('\n## ', start + 1))

  it('lists every page in docs/, each linked', () => {
    expect(start, 'a "## Documentation" section').toBeGreaterThan(0)
    const pages = readdirSync(join(packageRoot(), 'docs')).filter((name) => name.endsWith('.md')).sort()
    expect(pages.length).toBeGreaterThan(20)
    expect(pages.filter((page) => !table.includes(`](docs/${page})`))).toEqual([])
  })
})
