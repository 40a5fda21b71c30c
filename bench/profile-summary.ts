import { readFileSync } from 'node:fs'

/**
 * `node dist/bench/profile-summary.js <file.cpuprofile> <deliveries>`: a V8 CPU profile of the bench's server
 * (BENCH_NODE_ARGS="--cpu-prof ...") as self time per delivery, split by path. A sample belongs to the
 * acknowledgement path when its stack runs through the HTTP layer, a host's decoder or the intake, to the
 * processing path when it runs through the mailbox, worker, Slack client, people or routing, and to "shared"
 * otherwise (the group commit runs both paths' writes, and the collector serves both). Samples before the
 * first delivery (start-up) are left out.
 */
interface Frame { functionName: string; url: string; lineNumber: number }
interface Node { id: number; callFrame: Frame; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

const [file, deliveriesArg] = process.argv.slice(2)
if (!file || !deliveriesArg) throw new Error('usage: profile-summary <file.cpuprofile> <deliveries>')
const deliveries = Number(deliveriesArg)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const ACK = /\/src\/(http|intake|hosts)\/|\/h3\/|node:_http_server|webhook-route/
const PROCESSING = /\/src\/(mailbox|worker|slack|people|routing)\/|\/machines\/|@slack\/web-api|undici|node:internal\/deps\/undici/
const stackOf = (id: number): Frame[] => {
  const frames: Frame[] = []
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame)
  return frames
}
const shortUrl = (url: string) => url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1').replace(/^file:\/\/.*\/dist\//, '').replace(/^node:/, '')
const label = (f: Frame) => `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`.trim()

const totals = { ack: new Map<string, number>(), processing: new Map<string, number>(), shared: new Map<string, number>() }
let started = false
let sampled = 0
profile.samples.forEach((id, i) => {
  const frames = stackOf(id)
  if (!started && frames.some((f) => ACK.test(f.url))) started = true
  const leaf = frames[0]!
  if (!started || leaf.functionName === '(idle)' || leaf.functionName === '(program)') return
  const us = profile.timeDeltas[i] ?? 0
  const path = frames.some((f) => ACK.test(f.url)) ? 'ack' : frames.some((f) => PROCESSING.test(f.url)) ? 'processing' : 'shared'
  totals[path].set(label(leaf), (totals[path].get(label(leaf)) ?? 0) + us)
  sampled += us
})

console.log(`${file}: ${(sampled / 1000).toFixed(0)} ms of CPU sampled after the first delivery, ${deliveries} deliveries: ${(sampled / deliveries).toFixed(0)} µs per delivery`)
for (const [path, costs] of Object.entries(totals)) {
  const sum = [...costs.values()].reduce((a, b) => a + b, 0)
  console.log(`\n${path}: ${(sum / deliveries).toFixed(1)} µs per delivery, ${((100 * sum) / sampled).toFixed(1)} % of the samples`)
  for (const [name, us] of [...costs].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`  ${(us / deliveries).toFixed(1).padStart(6)} µs ${((100 * us) / sampled).toFixed(1).padStart(5)} %  ${name}`)
  }
}
