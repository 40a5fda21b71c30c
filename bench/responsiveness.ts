import '../src/cli/require-supported-node.ts'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compileTitleGlob, matchesTitleGlob } from '../src/config/title-glob.ts'
import { createBodyBudget, type BodyBudget } from '../src/http/body-budget.ts'
import { readNodeBody } from '../src/http/read-raw-body.ts'
import { createSlackBodyLane } from '../src/http/slack-body-lane.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { holdBodies } from '../test/helpers/held-bodies.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../test/helpers/slack-interaction.ts'
import { sendSignedSlack } from '../test/helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../test/helpers/start-prherald.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'

/**
 * `npm run bench:responsiveness`: how fast the answers are that the tests check only in order or outcome
 * (test/routing/pull-request-filter, test/http/body-budget, test/http/slack-flood), each against a baseline
 * taken in the same run, so a busy machine moves both. Prints the median of BENCH_RESPONSIVENESS_RUNS runs.
 */
const RUNS = Number(process.env.BENCH_RESPONSIVENESS_RUNS ?? 5)

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
async function timed(run: () => unknown): Promise<number> {
  const started = performance.now()
  await run()
  return performance.now() - started
}
async function medianOf(run: () => unknown): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) times.push(await timed(run))
  return median(times)
}
function line(what: string, ms: number, baseline: string, baselineMs: number): void {
  console.log(`${what.padEnd(58)} ${ms.toFixed(1).padStart(8)} ms   ${baseline.padEnd(44)} ${baselineMs.toFixed(1).padStart(8)} ms   x${(ms / baselineMs).toFixed(2)}`)
}

/** Title globs: a pattern built to make a backtracking matcher explode, against one star on the same title. */
async function titleGlobs(): Promise<void> {
  const title = 'a'.repeat(200_000)
  const hostile = compileTitleGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b')
  const plain = compileTitleGlob('*b')
  line('title glob *a*a*…*b (12 stars), 200,000-character title', await medianOf(() => matchesTitleGlob(hostile, title)),
    '*b on the same title', await medianOf(() => matchesTitleGlob(plain, title)))
}

/** The small-body lane: a 20 KiB body while six 128 KiB ones queue for a 128 KiB budget, against the same body alone. */
async function smallBodyLane(): Promise<void> {
  const servers: Server[] = []
  const serve = async (budget: BodyBudget, holdMs: number) => {
    const server = createServer((req, res) => {
      budget.admit(Number(req.headers['content-length'])).then(async (release) => {
        const body = await readNodeBody(req, 1024 * 1024).finally(() => setTimeout(release, holdMs))
        await new Promise((r) => setTimeout(r, holdMs))
        res.end(String(body.length))
      }, () => res.writeHead(503).end())
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return (server.address() as AddressInfo).port
  }
  const post = (port: number, size: number) => new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-length': String(size) } }, (res) => res.resume().on('end', resolve))
    req.on('error', reject)
    req.end(Buffer.alloc(size, 'x'))
  })
  const limits = { maxWaitMs: 10_000, smallBody: 64 * 1024, small: { maxBytes: 256 * 1024, maxWaiting: 100 }, large: { maxBytes: 128 * 1024, maxWaiting: 100 } }
  const behind: number[] = []
  const alone: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const port = await serve(createBodyBudget(limits), 300)
    const large = Array.from({ length: 6 }, () => post(port, 128 * 1024))
    behind.push(await timed(() => post(port, 20 * 1024)))
    await Promise.all(large)
    alone.push(await timed(() => post(port, 20 * 1024)))
  }
  for (const server of servers) server.close()
  line('20 KiB body while six 128 KiB bodies queue (300 ms each)', median(behind), 'the same body, nothing queued', median(alone))
}

/** Slack's signed requests while 240 unsigned bodies are held on its routes, against the same requests with none held. */
async function slackFlood(): Promise<void> {
  const dir = makeTempDir()
  const slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
  const lane = createSlackBodyLane()
  const service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET }), { slackBodyLane: lane })
  const answer = () => sendSignedSlack(service.url, '/webhook/slack/events', JSON.stringify({ type: 'url_verification', challenge: 'abc' }))
  try {
    const quiet = await medianOf(answer)
    const flood = await Promise.all([
      holdBodies({ port: service.port, path: '/webhook/slack/interactions', count: 40, declared: 1024 * 1024, sent: 64 * 1024 }),
      holdBodies({ port: service.port, path: '/webhook/slack/commands', count: 100, declared: 64 * 1024, sent: 32 * 1024 }),
      holdBodies({ port: service.port, path: '/webhook/slack/events', count: 100, declared: 64 * 1024, sent: 32 * 1024 }),
    ])
    await waitFor('held bodies cut', () => lane.cut >= 150, 5_000)
    const held = await medianOf(answer)
    for (const f of flood) f.leave()
    line('Slack url_verification while 240 unsigned bodies are held', held, 'the same request, nothing held', quiet)
  } finally {
    await service.stop()
    await slack.close()
    dir.remove()
  }
}

console.log(`median of ${RUNS} runs each; the ratio is to the baseline measured in the same run`)
await titleGlobs()
await smallBodyLane()
await slackFlood()
