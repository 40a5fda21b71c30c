import { afterEach, describe, expect, it } from 'vitest'
import { BODY_BUDGET, createBodyBudget } from '../../src/http/body-budget.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { holdBodies, type HeldBodies } from '../helpers/held-bodies.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { useGithubService } from '../helpers/use-github-service.ts'

/**
 * Issue 30.1: clients that declare a large body, send a few bytes and go away (or are dropped at Node's
 * requestTimeout) must give their room in the body budget back, whether they were reading or still waiting;
 * otherwise every later delivery of that size waits forever. Node's requestTimeout is shortened to 2 s.
 */
const TIMEOUTS = { headersMs: 2_000, requestMs: 2_000, keepAliveMs: 500, checkIntervalMs: 50 }
// One budget for the file: every test ends with all of it given back (which each one checks).
const budget = createBodyBudget({ ...BODY_BUDGET, maxWaitMs: TIMEOUTS.requestMs })
const t = useGithubService(undefined, { overrides: { httpTimeouts: TIMEOUTS, bodyBudget: budget } })
const floods: HeldBodies[] = []
afterEach(() => {
  for (const flood of floods.splice(0)) flood.leave()
})

/** A signed ping of about `size` bytes, answered within 3 s (a wedged lane never answers it). */
async function signedPing(size: number): Promise<number> {
  const payload = { ...githubExample('ping'), padding: 'x'.repeat(size) }
  const res = await deliver(t.service.url, 'github', { event: 'ping', payload, headers: {} }).catch(() => undefined)
  return res?.status ?? 0
}

const answeredInTime = (size: number) => Promise.race([signedPing(size), new Promise<number>((r) => setTimeout(() => r(-1), 3_000))])

/** 40 bodies of 1 MiB fill the large lane twice over; 120 of 60 KiB the small one (4 MiB) nearly twice. */
async function floodBothLanes(): Promise<HeldBodies[]> {
  const lanes = [{ count: 40, declared: 1024 * 1024 }, { count: 120, declared: 60 * 1024 }]
  const held = await Promise.all(lanes.map((lane) => holdBodies({ port: t.service.port, path: '/webhook/github', sent: 1000, ...lane })))
  floods.push(...held)
  // Both lanes full, and bodies waiting behind them: the state the wedge came from.
  await waitFor('bodies waiting in both lanes', () => budget.used > BODY_BUDGET.large.maxBytes && budget.waiting > 40)
  return held
}

describe('the body budget after a flood of clients that go away', () => {
  it('answers signed deliveries of each size right after clients that went away, and again after the request timeout', async () => {
    const held = await floodBothLanes()
    for (const flood of held) flood.leave()
    await Promise.all(held.map((flood) => flood.closed))
    // They leave the queue as they go, not when their wait runs out (2 s).
    await waitFor('the queue empty', () => budget.waiting === 0, 1_000)
    expect(await answeredInTime(100 * 1024)).toBe(200)
    expect(await answeredInTime(1024)).toBe(200)
    await new Promise((r) => setTimeout(r, TIMEOUTS.requestMs + 300))
    expect(await answeredInTime(100 * 1024)).toBe(200)
    expect(await answeredInTime(1024)).toBe(200)
    await waitFor('every byte given back', () => budget.used === 0 && budget.waiting === 0, 3_000)
  }, 20_000)

  it('drops a waiting body from the queue as soon as its client goes away, while the lane is still full', async () => {
    const full = await budget.admit(BODY_BUDGET.large.maxBytes)
    try {
      const waiters = await holdBodies({ port: t.service.port, path: '/webhook/github', count: 30, declared: 1024 * 1024, sent: 1000 })
      floods.push(waiters)
      await waitFor('30 waiting', () => budget.waiting === 30, 3_000)
      waiters.leave()
      // Well before their wait (2 s) runs out: gone clients hold no place in the queue.
      await waitFor('the queue empty', () => budget.waiting === 0, 1_000)
    } finally {
      full()
    }
    expect(budget.used).toBe(0)
  }, 20_000)

  it('gives back the room of clients Node drops at its request timeout, reading or waiting', async () => {
    const held = await floodBothLanes()
    // The clients stay; Node answers 408 and closes each at requestTimeout (2 s here).
    await Promise.all(held.map((flood) => flood.closed))
    expect(held.flatMap((flood) => flood.statuses()).filter((s) => s !== 408 && s !== 503)).toEqual([])
    expect(await answeredInTime(100 * 1024)).toBe(200)
    expect(await answeredInTime(1024)).toBe(200)
    await waitFor('every byte given back', () => budget.used === 0 && budget.waiting === 0, 3_000)
  }, 20_000)

  it('says degraded on /readyz (503) and /healthz while the budget admits nothing for longer than a delivery may wait', async () => {
    expect((await fetch(`${t.service.url}/readyz`)).status).toBe(200)
    // A slot nobody gives back stands for a wedge: a large delivery then waits behind it.
    const leaked = await budget.admit(BODY_BUDGET.large.maxBytes)
    const waiting = signedPing(100 * 1024)
    await waitFor('the delivery waiting', () => budget.waiting === 1, 3_000)
    await waitFor('/readyz 503', async () => (await fetch(`${t.service.url}/readyz`)).status === 503, 5_000)
    expect(await (await fetch(`${t.service.url}/readyz`)).json()).toMatchObject({ status: 'degraded', body_budget: 'full' })
    expect(await (await fetch(`${t.service.url}/healthz`)).json()).toMatchObject({ status: 'degraded', body_budget: 'full' })
    // The waiting delivery is shed (503) once it has waited as long as a delivery may; still no room: still not ready.
    expect(await waiting).toBe(503)
    expect(budget.waiting).toBe(0)
    expect((await fetch(`${t.service.url}/readyz`)).status).toBe(503)
    leaked()
    expect((await fetch(`${t.service.url}/readyz`)).status).toBe(200)
    expect(await answeredInTime(100 * 1024)).toBe(200)
  }, 20_000)
})
