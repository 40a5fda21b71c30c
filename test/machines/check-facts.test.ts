import { describe, expect, it } from 'vitest'
import { isForHead } from '../../machines/check-facts.ts'
import type { CommitCheck } from '../../machines/pull-request-event.ts'
import { prEvent } from './lifecycle-run.ts'

const HEAD = 'a'.repeat(40)
const MERGE = 'f'.repeat(40)
const result = (sha: string, over: Partial<CommitCheck> = {}) => ({
  ...prEvent('check_completed'), check: { sha, source: 'status:ci/build', outcome: 'failed', at: '2026-11-20T10:00:00Z', ...over } as CommitCheck,
})

describe('isForHead', () => {
  it('counts a result for the head commit, not one for another commit', () => {
    expect(isForHead({ head: HEAD }, result(HEAD))).toBe(true)
    expect(isForHead({ head: HEAD }, result(MERGE))).toBe(false)
    expect(isForHead({}, result(HEAD))).toBe(false)
  })

  it('counts a result on the merge ref (named by its pull request) whatever commit it ran on', () => {
    expect(isForHead({ head: HEAD }, result(MERGE, { onMergeRef: true }))).toBe(true)
    expect(isForHead({}, result(MERGE, { onMergeRef: true }))).toBe(true)
  })
})
