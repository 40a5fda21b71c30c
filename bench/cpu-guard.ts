import '../src/cli/require-supported-node.ts'
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostOf } from '../src/hosts/registry.ts'
import { signBody } from '../src/hosts/verify-signature.ts'
import { createIntake } from '../src/intake/intake.ts'
import { createLogger } from '../src/log/logger.ts'
import { packageRoot } from '../src/package-root.ts'
import { createApp } from '../src/server.ts'
import { migrateUp } from '../src/store/migrations.ts'
import { openDatabase } from '../src/store/open-database.ts'
import { createSqliteStore } from '../src/store/sqlite-store.ts'
import type { Store } from '../src/store/store.ts'
import { pullRequest } from '../test/helpers/github-payloads.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'

/**
 * Issue 25, "keep it won": the CPU time (process.cpuUsage, user + system) prherald spends per delivery up to
 * its acknowledgement (h3, the route, the signature, JSON.parse, decoding, the intake and its durable SQLite
 * commit, 32 deliveries in flight so the group commit works as under load), against a bare verify-and-parse of
 * the same deliveries in the same run. Rounds alternate and the median ratio counts, so a busy machine slows
 * both alike; the bound is the ratio stored in bench/targets.json times its tolerance (a change that costs a
 * third more fails). `npm run bench` measures the whole service against the bare server over HTTP.
 *
 * `npm run bench:cpu` prints the figures and exits 1 over the bound. It was a test in `npm test` until the
 * fourth round: a timing ratio on a shared 2-core machine failed a full run under load (5.14 against 4.79,
 * while the same tree measured 3.98 alone), and speed is measured here, not asserted in tests.
 */
const SECRET = 'guard-secret'
const targets = JSON.parse(readFileSync(join(packageRoot(), 'bench/targets.json'), 'utf8')) as { cpuGuard: { ratio: number; tolerance: number } }
const ROUNDS = 15
const PER_ROUND = 400
const dir = makeTempDir('prherald-cpu-guard-')
const db = openDatabase(join(dir.path, 'guard.db'))
migrateUp(db)
const store: Store = createSqliteStore(db)

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since)
  return used.user + used.system
}

function bare(body: Buffer, signature: string): void {
  const given = Buffer.from(signature.replace(/^sha256=/, ''), 'hex')
  const expected = createHmac('sha256', SECRET).update(body).digest()
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('signature')
  JSON.parse(body.toString('utf8'))
}

async function measure(): Promise<boolean> {
  const app = createApp({
    logger: createLogger({ format: 'json', level: 'error' }),
    webhooks: [{
      host: hostOf('github'), secrets: [SECRET],
      accept: createIntake({
        host: hostOf('github'), mappings: { Codertocat: { '*': { channel: 'C0000000001' } } },
        reviews: { ignoreBotReviews: false, dependencyBots: 'compact', dependencyBotLogins: [] },
        store, logger: createLogger({ format: 'json', level: 'error' }), handOff: () => {},
      }),
    }],
  })
  // Every delivery a body of its own: the same bytes under a new id are refused as a replay, which
  // would measure the refusal instead of the durable acknowledgement. Made before each round's clock starts.
  let made = 0
  const makeRound = () => Array.from({ length: PER_ROUND }, () => {
    const body = Buffer.from(JSON.stringify(pullRequest('opened', 100 + made++)))
    return { body, signature: signBody(SECRET, body) }
  })
  let signed = makeRound()
  let accepted = 0
  const deliver = async (i: number) => {
    const { body, signature } = signed[i]!
    const response = await app.fetch(new Request('http://127.0.0.1/webhook/github', {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature },
    }))
    if (response.status !== 200) throw new Error(`status ${response.status}`)
    if (((await response.json()) as { status?: string }).status === 'accepted') accepted++
  }
  const service = async () => {
    let next = 0
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < PER_ROUND) await deliver(next++)
    }))
  }
  await service() // warm-up: compile, prepare, first pages
  const ratios: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    signed = makeRound()
    let at = process.cpuUsage()
    for (let i = 0; i < PER_ROUND; i++) bare(signed[i]!.body, signed[i]!.signature)
    const bareCpu = cpuMicros(at)
    at = process.cpuUsage()
    await service()
    ratios.push(cpuMicros(at) / bareCpu)
  }
  // Each delivery was durably accepted, none refused as a duplicate or replay: the guard measures the real path.
  if (accepted !== (ROUNDS + 1) * PER_ROUND) throw new Error(`accepted ${accepted} of ${(ROUNDS + 1) * PER_ROUND}: the guard did not measure the real path`)
  const bound = targets.cpuGuard.ratio * targets.cpuGuard.tolerance
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!
  console.log(`CPU per acknowledged delivery / bare verify-and-parse: median ${median.toFixed(2)} of ${ratios.map((r) => r.toFixed(2)).join(', ')}`
    + ` (bound ${bound.toFixed(2)}): ${median <= bound ? 'MET' : 'OVER'}`)
  return median <= bound
}

const met = await measure().finally(async () => {
  await store.close()
  dir.remove()
})
process.exitCode = met ? 0 : 1
