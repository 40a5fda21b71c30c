import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * What `npm link` gives a user, for a test: one executable per `bin` entry of package.json in `dir`, each
 * running the built CLI (dist/) with this Node. Put `dir` on PATH and the docs' `prherald-*` commands work.
 */
export function linkCommands(dir: string): string[] {
  const root = packageRoot()
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  return Object.entries(bin).map(([name, file]) => {
    const shim = join(dir, name)
    writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${join(root, file)}' "$@"\n`)
    chmodSync(shim, 0o755)
    return name
  })
}
