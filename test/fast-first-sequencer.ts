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
 * durations recorded in test/file-durations.json (`npm run test:durations`) order each tier instead.
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
    const recorded = measured ? {} : recordedDurations()
    const seconds = (file: TestSpecification) => recorded[path(file)] ?? 0
    // Array.prototype.sort is stable: vitest's order stays within a tier (and among files of equal record).
    return ordered.sort((a, b) => tiers.get(a)! - tiers.get(b)! || seconds(b) - seconds(a))
  }
}

/** Each test file's seconds in a full run, as test/file-durations.json last recorded them. */
export function recordedDurations(): Record<string, number> {
  return JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>
}
