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
 * Node 26's V8 grows the young generation a page (about 0.7 MiB) at a time, and the observer hears of
 * collections a little late, so a few pages past the cap come and go within some rounds; how many depends on
 * the timing of the collections (a loaded machine saw 12.45 MiB once). Hence two figures: the size the young
 * generation holds (the median of the second half of the rounds) and the largest seen.
 */
function youngMiB(call: 'limit' | 'none' | 'operator-flag'): { held: number; largest: number } {
  const limits = pathToFileURL(join(packageRoot(), 'dist/src/memory/heap-limits.js')).href
  const script = `
import { getHeapSpaceStatistics } from 'node:v8'
const { limitHeapGrowth } = await import(${JSON.stringify(limits)})
const call = ${JSON.stringify(call)}
if (call === 'limit') limitHeapGrowth()
if (call === 'operator-flag') limitHeapGrowth(undefined, [process.env.OPERATOR_FLAG])
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').physical_space_size
const kept = []
const sizes = []
for (let round = 0; round < 1200; round++) {
  for (let i = 0; i < 5000; i++) {
    const item = { id: i, text: 'delivery ' + i, list: [i, i + 1] }
    if (i % 40 === 0) kept.push(item)
  }
  if (kept.length > 30000) kept.splice(0, 15000)
  await new Promise((resolve) => setImmediate(resolve))
  sizes.push(young() / 1048576)
}
const held = sizes.slice(sizes.length / 2).sort((a, b) => a - b)[sizes.length / 4]
console.log(JSON.stringify({ held, largest: Math.max(...sizes) }))
`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, OPERATOR_FLAG: '--max-semi-space-size=64' } })) as { held: number; largest: number }
}

// V8 alone lets it grow to 64 MiB on Node 26; other Node lines' defaults differ, so the comparisons are relative.
it('keeps the young generation near 8 MiB, well below where V8 alone lets it grow, unless the operator sized the heap', () => {
  const limited = youngMiB('limit')
  expect(limited.held).toBeLessThanOrEqual(9)
  expect(limited.largest).toBeLessThanOrEqual(16)
  expect(youngMiB('none').held).toBeGreaterThan(limited.held + 8)
  expect(youngMiB('operator-flag').held).toBeGreaterThan(limited.held + 8)
})
