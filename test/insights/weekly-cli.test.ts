import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import { decodePng, inkedPixels } from '../helpers/decode-png.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { WEEKLY_AT, WEEKLY_HISTORY, WEEKLY_TEXT } from '../helpers/weekly-history.ts'

/**
 * `prherald-digest --weekly --dry-run` as a process (the built CLI): the weekly summary of the database's
 * turnaround rows, its text on stdout and its chart in --out, nothing sent to Slack (SLACK_API_URL is a closed
 * port); --weekly without --dry-run is refused with what to write instead.
 */
let dir: ReturnType<typeof makeTempDir>
beforeEach(async () => {
  dir = makeTempDir()
  writeConfig(dir.path, {
    git_provider: 'github', insights: { enabled: true, weekly: { channel: 'C0WEEKLY1', day: 'monday' } },
    mappings: { acme: { api: { channel: 'C0123456789' } } },
  })
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  const store = createSqliteStore(db, () => WEEKLY_AT)
  for (const row of WEEKLY_HISTORY) await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], turnaround: row })
  await store.close()
})
afterEach(() => dir.remove())

const digest = (args: string[]) => runCliAsync('digest', args, testEnv(dir.path, 'github'), dir.path)

describe('prherald-digest --weekly', () => {
  it('--dry-run prints the summary and writes the chart to --out, posting nothing', async () => {
    const out = join(dir.path, 'charts', '..', 'weekly.png')
    const result = await digest(['--weekly', '--dry-run', '--out', out, '--at', new Date(WEEKLY_AT).toISOString()])
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n')).toEqual([...WEEKLY_TEXT, ''])
    expect(result.stderr).toBe(`dry run: the chart is in ${join(dir.path, 'weekly.png')}; nothing posted\n`)
    const chart = decodePng(readFileSync(join(dir.path, 'weekly.png')))
    expect(chart.width).toBeGreaterThan(1000)
    expect(inkedPixels(chart)).toBeGreaterThan(chart.width * chart.height * 0.05)
  })

  it('writes weekly.png in the working directory when --out is not given', async () => {
    const result = await digest(['--weekly', '--dry-run', '--at', new Date(WEEKLY_AT).toISOString()])
    expect(result.status).toBe(0)
    expect(existsSync(join(dir.path, 'weekly.png'))).toBe(true)
  })

  it('refuses --weekly without --dry-run, and an --out it cannot write, each with the fix', async () => {
    const posting = await digest(['--weekly'])
    expect(posting.status).toBe(1)
    expect(posting.stderr).toContain('--weekly only shows the weekly summary: the servers post it at its time (insights.weekly)')
    expect(posting.stderr).toContain('add --dry-run, e.g. prherald-digest --weekly --dry-run --out weekly.png')
    const nowhere = await digest(['--weekly', '--dry-run', '--out', join(dir.path, 'missing', 'weekly.png')])
    expect(nowhere.status).toBe(1)
    expect(nowhere.stderr).toContain('give --out a file in a directory you can write to')
    expect(nowhere.stderr).not.toMatch(/\n\s+at /) // no stack trace
  })
})
