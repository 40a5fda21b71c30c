import '../src/cli/require-supported-node.ts'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../src/package-root.ts'

/**
 * `npm run test:durations`, after a full `npm test`: writes test/file-durations.json from vitest's own record
 * of the run (node_modules/.vite/vitest/<hash>/results.json), each file's time rounded to 0.1 s. A fresh clone
 * has no such record, so vitest cannot start the longest files first; test/fast-first-sequencer.ts reads this
 * file instead. The figures order the files, nothing more: a stale one costs a little tail, never a result.
 */
const ROOT = packageRoot()
const cache = join(ROOT, 'node_modules/.vite/vitest')
const durations: Record<string, number> = {}
for (const dir of readdirSync(cache)) {
  const { results } = JSON.parse(readFileSync(join(cache, dir, 'results.json'), 'utf8')) as { results: Array<[string, { duration?: number }]> }
  for (const [key, { duration }] of results) {
    const file = key.slice(key.indexOf(':') + 1)
    if (duration !== undefined && file.startsWith('test/') && existsSync(join(ROOT, file))) durations[file] = Math.max(durations[file] ?? 0, Math.round(duration / 100) / 10)
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)))
writeFileSync(join(ROOT, 'test/file-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`)
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`)
