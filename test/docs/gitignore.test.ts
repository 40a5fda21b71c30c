import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The quick start (README, docs/getting-started.md) creates files inside the clone that hold a team's
 * channel ids and secrets; `git status` must not offer to commit them. Asks git itself, in a scratch
 * repository holding only our .gitignore, so the test also runs from a source archive without .git.
 */
const ROOT = packageRoot()
const quickStart = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8') + readFileSync(join(ROOT, 'README.md'), 'utf8')

let repo: ReturnType<typeof makeTempDir>
beforeAll(() => {
  repo = makeTempDir()
  spawnSync('git', ['init', '-q'], { cwd: repo.path })
  copyFileSync(join(ROOT, '.gitignore'), join(repo.path, '.gitignore'))
})
afterAll(() => repo.remove())

describe('.gitignore', () => {
  it.each(['my-config.yaml', '.env', 'config.lock', 'data/prherald.db'])('ignores %s, which the quick start creates in the clone', (file) => {
    expect(quickStart).toContain(file.startsWith('data/') ? 'data/' : file)
    const result = spawnSync('git', ['check-ignore', '--no-index', '--quiet', file], { cwd: repo.path })
    expect(result.status, `git check-ignore ${file}`).toBe(0)
  })
})
