import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The folders `npm run build` compiles into dist/ (tsconfig.build.json's include). */
const SOURCES = ['src', 'machines', 'scripts', 'bench', 'test/helpers']

/**
 * The source files whose build output in dist/ is missing or older than they are: what an end-to-end test
 * would run stale. Compares each .ts with its .js, file by file (`tsc -b` rewrites the output of a file it
 * compiles again, so a fresh build leaves none).
 */
export function staleBuildOutputs(root: string): string[] {
  const stale: string[] = []
  for (const folder of SOURCES) {
    for (const source of typescriptFiles(join(root, folder))) {
      const output = join(root, 'dist', relative(root, source)).replace(/\.ts$/, '.js')
      if (!existsSync(output) || statSync(output).mtimeMs < statSync(source).mtimeMs) stale.push(relative(root, source))
    }
  }
  return stale
}

function typescriptFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return typescriptFiles(path)
    // An editor's lock file beside a source (Emacs's .#name.ts, as test/cli/dev.test.ts leaves for a moment) is no source.
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.startsWith('.') ? [path] : []
  })
}
