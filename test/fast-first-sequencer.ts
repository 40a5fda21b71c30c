import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * `npm test` runs every test file, end-to-end ones included; this orders them so that the quick ones report
 * first. Three tiers, read from what a file calls:
 * 0. pure: no server, no process, no database (decoders, machines, rendering, routing, config);
 * 1. in-process: prherald, a fake or a PostgreSQL database on 127.0.0.1 inside the test's own process;
 * 2. end-to-end: real processes (prherald-server, the commands, a PostgreSQL server of its own).
 * Within a tier vitest's own order holds (a file that failed last time first, then the longest first, as
 * measured by the previous run), so the slowest files of the last tier start early and the run's tail stays
 * as short as it was. A fresh clone (CI) has no previous run, and vitest would put the largest files first:
 * some of the slowest are short (npm link, the Node guard) and would start last, alone at the end. There the
 * durations recorded in test/file-durations.json (`npm run test:durations`) order each tier instead, and a file
 * with no record yet (added since the last full run) goes first in its tier: it may be among the longest, and
 * started last it would be the run's tail alone.
 */
const PROCESSES = /\b(spawnServer|runCli|runCliAsync|startPostgresServer|execFile|execFileSync|spawnSync|spawn)\(/
const IN_PROCESS = /\b(startPrherald|usePrherald|startService|startFake\w*|createTestDatabase|personalHarness|personalStores|useDirAndSlack|createServer)\(/

export function tierOf(source: string): 0 | 1 | 2 {
  if (PROCESSES.test(source)) return 2
  if (IN_PROCESS.test(source)) return 1
  return 0
}

export class FastFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files)
    const root = this.ctx.config.root
    const path = (file: TestSpecification) => relative(root, file.moduleId).split('\\').join('/')
    const tiers = new Map(ordered.map((file) => [file, tierOf(readFileSync(file.moduleId, 'utf8'))]))
    const measured = ordered.some((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`) !== undefined)
    const recorded = measured ? undefined : recordedDurations()
    const seconds = (file: TestSpecification) => recorded ? recordedSeconds(recorded, path(file)) : 0
    // Array.prototype.sort is stable: vitest's order stays within a tier (and among files of equal record).
    return ordered.sort((a, b) => tiers.get(a)! - tiers.get(b)! || longerFirst(seconds(a), seconds(b)))
  }
}

/** A file's seconds as recorded; one with no record counts as longer than any (it goes first in its tier). */
export function recordedSeconds(recorded: Record<string, number>, file: string): number {
  return recorded[file] ?? Number.POSITIVE_INFINITY
}

/** A sort comparison putting the longer first; two files with no record keep their order. */
export function longerFirst(a: number, b: number): number {
  return a === b ? 0 : b - a
}

/** Each test file's seconds in a full run, as test/file-durations.json last recorded them. */
export function recordedDurations(): Record<string, number> {
  return JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>
}
