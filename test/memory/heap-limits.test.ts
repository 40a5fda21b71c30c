import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'

/**
 * The server's own heap sizing (issue 25), in fresh processes because V8's flags are process-wide: a churn
 * of short-lived objects in chunks of a delivery's size with an event-loop turn between them, as a server
 * has, and the young generation's largest size seen, in MiB. (The cap is applied between collections, so one
 * synchronous task that allocates hundreds of MiB could still take the young generation past it.)
 */
function largestYoungMiB(call: 'limit' | 'none' | 'operator-flag'): number {
  const limits = pathToFileURL(join(packageRoot(), 'dist/src/memory/heap-limits.js')).href
  const script = `
import { getHeapSpaceStatistics } from 'node:v8'
const { limitHeapGrowth } = await import(${JSON.stringify(limits)})
const call = ${JSON.stringify(call)}
if (call === 'limit') limitHeapGrowth()
if (call === 'operator-flag') limitHeapGrowth(undefined, [process.env.OPERATOR_FLAG])
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').physical_space_size
const kept = []
let largest = 0
for (let round = 0; round < 1200; round++) {
  for (let i = 0; i < 5000; i++) {
    const item = { id: i, text: 'delivery ' + i, list: [i, i + 1] }
    if (i % 40 === 0) kept.push(item)
  }
  if (kept.length > 30000) kept.splice(0, 15000)
  await new Promise((resolve) => setImmediate(resolve))
  largest = Math.max(largest, young())
}
console.log(largest / 1048576)
`
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, OPERATOR_FLAG: '--max-semi-space-size=64' } }).trim())
}

// V8 alone lets it grow to 64 MiB on Node 26; other Node lines' defaults differ, so the comparisons are relative.
it('keeps the young generation near 8 MiB, well below where V8 alone lets it grow, unless the operator sized the heap', () => {
  const limited = largestYoungMiB('limit')
  expect(limited).toBeLessThanOrEqual(12)
  expect(largestYoungMiB('none')).toBeGreaterThan(limited + 8)
  expect(largestYoungMiB('operator-flag')).toBeGreaterThan(limited + 8)
})
