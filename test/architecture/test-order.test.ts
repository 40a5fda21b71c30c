import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { longerFirst, recordedSeconds, tierOf } from '../fast-first-sequencer.ts'

/** `npm test` reports the quick files first: the tier each file is put in, read from what it calls. */
const tier = (file: string) => tierOf(readFileSync(join(packageRoot(), 'test', file), 'utf8'))

describe('the order npm test runs files in', () => {
  it('puts pure files first, in-process servers next, real processes last', () => {
    expect(tier('decode/github.test.ts')).toBe(0)
    expect(tier('machines/decide.test.ts')).toBe(0)
    expect(tier('lifecycle/concurrency.test.ts')).toBe(1)
    expect(tier('faults/adopted-post.test.ts')).toBe(1)
    expect(tier('replicas/replicas.test.ts')).toBe(2)
    expect(tier('faults/process-signals.test.ts')).toBe(2)
  })

  it('on a fresh clone, starts the longest recorded files first in a tier, and a file with no record before them', () => {
    const recorded = { 'test/a.test.ts': 3, 'test/b.test.ts': 60 }
    const files = ['test/a.test.ts', 'test/new.test.ts', 'test/b.test.ts', 'test/newer.test.ts']
    expect(files.sort((a, b) => longerFirst(recordedSeconds(recorded, a), recordedSeconds(recorded, b))))
      .toEqual(['test/new.test.ts', 'test/newer.test.ts', 'test/b.test.ts', 'test/a.test.ts'])
  })
})
