import { chmodSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * What `npm link` gives a user, for a test: one symlink per `bin` entry of package.json in `dir` to the built
 * CLI (dist/), made executable as npm makes it. Put `dir` on PATH and the docs' `prherald-*` commands work, each
 * started by its `#!/usr/bin/env node` line with whichever `node` comes first on that PATH.
 */
export function linkCommands(dir: string): string[] {
  const root = packageRoot()
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  return Object.entries(bin).map(([name, file]) => {
    chmodSync(join(root, file), 0o755)
    symlinkSync(join(root, file), join(dir, name))
    return name
  })
}
