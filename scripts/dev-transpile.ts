import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import ts from 'typescript'

/**
 * Compiles one changed source file into dist/ without type checking, the way `tsc` would emit it (the
 * project compiles file by file: isolatedModules). A full `tsc` takes tens of seconds; this takes
 * milliseconds, so a restart follows a save at once. Types are for `npm run typecheck` and the editor.
 * Returns the file written, or undefined for a file that is not a TypeScript source of the project.
 */
export function transpileToDist(root: string, file: string): string | undefined {
  const path = relative(root, file)
  if (!path.endsWith('.ts') || path.endsWith('.d.ts') || path.startsWith('..') || path.startsWith('dist') || path.startsWith('node_modules')) return undefined
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => readFileSync(p, 'utf8'))
  const { options } = ts.convertCompilerOptionsFromJson(config.config?.compilerOptions ?? {}, root)
  const output = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: {
    // The package is "type": "module", which transpileModule cannot see: say ESM outright (NodeNext would emit CommonJS here).
    ...options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false,
  }, fileName: file })
  const target = join(root, 'dist', path.replace(/\.ts$/, '.js'))
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, output.outputText)
  return target
}
