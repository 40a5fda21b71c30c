import '../src/cli/require-supported-node.ts'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseDocument } from 'yaml'
import { loadSettings } from '../src/config/load-config.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'

/**
 * `npm run bench:config`: how long prherald takes to load a config of 75,000 repositories (about 3 MB)
 * against the YAML library parsing the same text with its own duplicate-key check off, the floor any loader
 * built on it pays. One owner holds every repository, the worst case for a per-map duplicate check; one in
 * 250 reuses a shared `mentions` list through an alias, as a script-written config does. Prints the median
 * of BENCH_CONFIG_RUNS runs of each, and the ratio (the target is at most 2).
 */
const REPOS = Number(process.env.BENCH_CONFIG_REPOS ?? 75_000)
const RUNS = Number(process.env.BENCH_CONFIG_RUNS ?? 5)

function configOfSize(repos: number): string {
  const lines = [
    'git_provider: github',
    'mappings:',
    '  acme:',
    '    "*":',
    '      channel: C0000000000',
    '      mentions: &team ["<!subteam^S0123ABCD>", "<@U0123ABCD>", "<!here>"]',
  ]
  for (let i = 1; i <= repos; i++) {
    lines.push(`    repo-${String(i).padStart(5, '0')}:`, `      channel: C${String(i).padStart(10, '0')}`)
    if (i % 250 === 0) lines.push('      mentions: *team')
  }
  return `${lines.join('\n')}\n`
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function time(run: () => void): number {
  const started = performance.now()
  run()
  return performance.now() - started
}

const dir = makeTempDir('prherald-bench-config-')
const file = join(dir.path, 'config.yaml')
writeFileSync(file, configOfSize(REPOS))
const env = { PRHERALD_CONFIG_FILE: file }
const bytes = readFileSync(file).length
console.log(`config: ${REPOS} repositories, ${(bytes / 1e6).toFixed(2)} MB, median of ${RUNS} runs each\n`)

const bare: number[] = []
const loaded: number[] = []
for (let i = 0; i < RUNS; i++) {
  // Alternate the two, so that a busy moment on the machine falls on both alike.
  bare.push(time(() => parseDocument(readFileSync(file, 'utf8'), { uniqueKeys: false })))
  loaded.push(time(() => loadSettings(env, dir.path)))
}
dir.remove()

const ms = (n: number) => `${n.toFixed(0)} ms`
console.log('| step | median | all runs |\n|---|---:|---|')
console.log(`| read + parseDocument(text, { uniqueKeys: false }) | ${ms(median(bare))} | ${bare.map(ms).join(', ')} |`)
console.log(`| prherald loadSettings (read, parse, checks, validation) | ${ms(median(loaded))} | ${loaded.map(ms).join(', ')} |`)
console.log(`\nratio prherald / bare parse: ${(median(loaded) / median(bare)).toFixed(2)} (target: at most 2)`)
