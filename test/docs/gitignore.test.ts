import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * The quick start (README, docs/getting-started.md) creates files inside the clone that hold a team's
 * channel ids and secrets; `git status` must not offer to commit them. Asks git itself (check-ignore reads
 * .gitignore without needing the files to exist).
 */
const ROOT = packageRoot()
const quickStart = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8') + readFileSync(join(ROOT, 'README.md'), 'utf8')

describe('.gitignore', () => {
  it.each(['my-config.yaml', '.env', 'config.lock', 'data/prherald.db'])('ignores %s, which the quick start creates in the clone', (file) => {
    expect(quickStart).toContain(file.startsWith('data/') ? 'data/' : file)
    const result = spawnSync('git', ['check-ignore', '--no-index', '--quiet', file], { cwd: ROOT })
    expect(result.status, `git check-ignore ${file}`).toBe(0)
  })
})
