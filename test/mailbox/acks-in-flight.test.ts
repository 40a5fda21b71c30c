import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { acksOfThread, createAcksInFlight } from '../../src/mailbox/acks-in-flight.ts'
import { waitFor } from '../helpers/start-prherald.ts'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** A real server whose answers wait until the test releases them, counted by `acks`. */
async function heldServer(acks: ReturnType<typeof createAcksInFlight>) {
  const held: Array<() => void> = []
  const arrived: Array<() => void> = []
  server = createServer(acks.counted((_req, res) => {
    held.push(() => res.end('ok'))
    arrived.shift()?.()
  }))
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const send = () => {
    const answered = new Promise<number>((resolve, reject) => {
      request(url, { method: 'POST' }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)) }).on('error', reject).end('{}')
    })
    return { answered, arrived: new Promise<void>((resolve) => arrived.push(resolve)) }
  }
  return { held, send }
}

describe('acks in flight', () => {
  it('is busy while a request is answered and for quietMs after, then tells its listeners once', async () => {
    let now = 0
    const acks = createAcksInFlight({ quietMs: 5, now: () => now })
    let told = 0
    const quiet = new Promise<void>((resolve) => acks.onQuiet(() => { told++; resolve() }))
    const { held, send } = await heldServer(acks)
    expect(acks.busy()).toBe(false)

    const first = send()
    await first.arrived
    expect(acks.busy()).toBe(true)
    held.shift()!()
    expect(await first.answered).toBe(200)
    // Answered, and the clock has not moved: the next delivery of a burst is likely on its way.
    expect(acks.busy()).toBe(true)
    expect(told).toBe(0)
    now = 5
    await quiet
    expect(acks.busy()).toBe(false)
    expect(told).toBe(1)
  })

  it('counts a request whose client went away before its answer', async () => {
    let now = 0
    const acks = createAcksInFlight({ quietMs: 1, now: () => now })
    const { send } = await heldServer(acks)
    const gone = send()
    await gone.arrived
    expect(acks.busy()).toBe(true)
    const quiet = new Promise<void>((resolve) => acks.onQuiet(resolve))
    server!.closeAllConnections()
    await expect(gone.answered).rejects.toThrow()
    await new Promise((resolve) => setImmediate(resolve))
    now = 10
    await quiet
    expect(acks.busy()).toBe(false)
  })
})

describe('acks answered on another thread', () => {
  it('is busy while the thread counts a request in flight and for quietMs after its last answer, then tells its listeners once', async () => {
    const inFlight = new Int32Array(new SharedArrayBuffer(4))
    const last = new Float64Array(new SharedArrayBuffer(8))
    last[0] = Number.NEGATIVE_INFINITY
    const acks = acksOfThread({ inFlight: () => Atomics.load(inFlight, 0), lastAnsweredAt: () => last[0]! }, { quietMs: 20 })
    let quiet = 0
    acks.onQuiet(() => quiet++)
    expect(acks.busy()).toBe(false)
    Atomics.add(inFlight, 0, 1)
    expect(acks.busy()).toBe(true)
    Atomics.sub(inFlight, 0, 1)
    last[0] = Date.now()
    expect(acks.busy()).toBe(true)
    // No request ends on this thread: its own timer finds the quiet.
    await waitFor('the quiet', () => quiet > 0)
    expect(acks.busy()).toBe(false)
    expect(quiet).toBe(1)
  })
})
