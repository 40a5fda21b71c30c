import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

function sourcesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

/**
 * The first source of the build (tsconfig.build.json's `include`) whose compiled file in dist/ is missing or
 * older than it, or undefined when dist/ is current. A stat per file, milliseconds: `npm run dev` starts
 * without `tsc` when nothing changed. Not `tsc -b`'s own check: that one compares against its build info,
 * which a file `npm run dev` recompiled on save (scripts/dev-transpile.ts) leaves behind, and then checks
 * the whole program again (10 to 60 s) for a dist/ that is already current.
 */
export function staleSource(root: string): string | undefined {
  const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] }
  for (const source of include.flatMap((dir) => sourcesUnder(join(root, dir)))) {
    const path = relative(root, source)
    const built = join(root, 'dist', path.replace(/\.ts$/, '.js'))
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) return path
  }
  return undefined
}
