import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { staleSource } from '../../scripts/dev-stale-source.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** `npm run dev` builds only when a source of the build is newer than its file in dist/ (or has none). */
let root: ReturnType<typeof makeTempDir>
beforeEach(() => {
  root = makeTempDir()
  writeFileSync(join(root.path, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src', 'scripts'] }))
})
afterEach(() => root.remove())

function write(path: string, secondsAgo: number): void {
  const file = join(root.path, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, '')
  const when = new Date(Date.now() - secondsAgo * 1000)
  utimesSync(file, when, when)
}

describe('staleSource', () => {
  it('is undefined when every source has an output at least as new, outside the build ignored', () => {
    write('src/cli/a.ts', 60)
    write('src/types.d.ts', 1)
    write('scripts/b.ts', 60)
    write('test/c.test.ts', 1)
    write('dist/src/cli/a.js', 30)
    write('dist/scripts/b.js', 30)
    expect(staleSource(root.path)).toBeUndefined()
  })

  it('names a source saved after its build, and one never built', () => {
    write('src/cli/a.ts', 10)
    write('dist/src/cli/a.js', 30)
    expect(staleSource(root.path)).toBe('src/cli/a.ts')
    write('dist/src/cli/a.js', 0)
    write('scripts/new.ts', 60)
    expect(staleSource(root.path)).toBe('scripts/new.ts')
  })
})
