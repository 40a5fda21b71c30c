import { describe, expect, it } from 'vitest'
import { createProgress } from '../../src/log/progress.ts'

/** A stream that keeps what was written, as a pipe or a terminal would get it. */
function recorder(isTTY: boolean) {
  const chunks: string[] = []
  return { chunks, stream: { isTTY, columns: 200, write: (chunk: string) => { chunks.push(chunk); return true } } }
}

describe('progress of a long command', () => {
  it('writes a plain line every few seconds when not on a terminal, with counts and the time left, and a last one at the end', () => {
    let clock = 0
    const { chunks, stream } = recorder(false)
    const progress = createProgress('migrating', { unit: 'rows', total: 1000, stream, everyMs: 5000, now: () => clock })
    for (let i = 0; i < 10; i++) {
      clock += 1000
      progress.advance(50)
    }
    progress.finish()
    expect(chunks).toEqual([
      'migrating: 250/1000 rows (25%), about 15 s left\n',
      'migrating: 500/1000 rows (50%), about 10 s left\n',
      'migrating: 500/1000 rows (50%), about 10 s left\n',
    ])
    progress.advance(10)
    progress.finish()
    expect(chunks).toHaveLength(3)
  })

  it('says how many so far when the total is not known', () => {
    let clock = 0
    const { chunks, stream } = recorder(false)
    const progress = createProgress('reconciling', { unit: 'repositories', total: 0, stream, everyMs: 2000, now: () => clock })
    clock += 2000
    progress.advance(3)
    expect(chunks).toEqual(['reconciling: 3 repositories, 2 s so far\n'])
  })

  it('redraws one bar in place on a terminal and ends its line when finished', () => {
    let clock = 0
    const { chunks, stream } = recorder(true)
    const progress = createProgress('copying', { unit: 'rows', total: 100, stream, now: () => clock })
    clock += 100
    progress.advance(50)
    progress.finish()
    expect(chunks[0]).toBe('\r[############------------] copying: 50/100 rows (50%), about 0 s left\x1b[K')
    expect(chunks.at(-1)).toBe('\n')
    expect(chunks.every((c) => !c.slice(0, -1).includes('\n'))).toBe(true)
  })
})
