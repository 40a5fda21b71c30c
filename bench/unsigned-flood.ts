import '../src/cli/require-supported-node.ts'
import { randomUUID } from 'node:crypto'
import { request } from 'node:http'
import { loadavg } from 'node:os'
import { signBody } from '../src/hosts/verify-signature.ts'
import { killChildren, rssMiB, spawnListening } from './processes.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { openedPayload } from './correctness-burst.ts'

/**
 * Issue 23.2: resident memory under a flood of unsigned bodies, with signed deliveries still acknowledged.
 * 300 connections each send an unsigned 960 KiB body at once, three waves; meanwhile signed deliveries go
 * one after another. Reports the server's peak RSS (target: under 250 MiB) and what the signed ones got.
 * prherald's real app, intake and SQLite store (bench/serve-intake.ts); 127.0.0.1 only; bounded in time.
 */
const SECRET = 'bench-webhook-secret-0123456789'
const FLOOD = 300
const WAVES = 3
const BODY = Buffer.alloc(960 * 1024, 0x61)

const hardStop = setTimeout(() => {
  console.error('unsigned-flood: over its time limit, giving up')
  killChildren()
  process.exit(2)
}, 120_000)
hardStop.unref()

function post(url: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0)) // a shed request's connection closed under it
    req.end(body)
  })
}

const dir = makeTempDir('prherald-flood-')
const server = await spawnListening('dist/bench/serve-intake.js', [SECRET, dir.path, 'store'], process.env)
const url = `${server.url}/webhook/github`
const before = rssMiB(server.child.pid)
let peak = before
const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(server.child.pid)) }, 50)

const unsigned: Record<string, number> = {}
const signed: Record<string, number> = {}
let flooding = true
const signedLoop = (async () => {
  for (let i = 0; flooding; i++) {
    const body = Buffer.from(JSON.stringify({ ...openedPayload(20_000 + (i % 50)), bench_request: i }))
    const status = await post(url, {
      'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signBody(SECRET, body),
    }, body)
    signed[status] = (signed[status] ?? 0) + 1
  }
})()
const started = performance.now()
for (let wave = 0; wave < WAVES; wave++) {
  const answers = await Promise.all(Array.from({ length: FLOOD }, () => post(url, {
    'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
  }, BODY)))
  for (const status of answers) unsigned[status] = (unsigned[status] ?? 0) + 1
}
flooding = false
await signedLoop
clearInterval(sampler)
const seconds = (performance.now() - started) / 1000
await server.stop()
dir.remove()
console.log(JSON.stringify({
  flood: `${WAVES} waves of ${FLOOD} concurrent unsigned ${BODY.length / 1024} KiB bodies`, seconds: Number(seconds.toFixed(1)),
  rss_before_mib: before, rss_peak_mib: peak, unsigned_answers: unsigned, signed_answers: signed, load_average_1m: Number(loadavg()[0]!.toFixed(2)),
}))
