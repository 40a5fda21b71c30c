import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FakeSlack, SlackFault } from '../test/helpers/fake-slack.ts'
import { spawnListening, type Child } from './processes.ts'

/** prherald-server replicas the chaos run kills and restarts; any other exit is a violation. */
export interface Cluster {
  urls(): string[]
  /** SIGKILLs a random replica, then starts a new one in its place. */
  killOne(): Promise<void>
  stopAll(): Promise<void>
  kills: number
  restarts: number
  /** Replicas that exited without being killed or stopped, as `code` / `signal`. */
  unexpectedExits: string[]
}

/** `logDir`: each start's whole JSON log goes to replica-start-<n>.log there. */
export async function startCluster(count: number, env: NodeJS.ProcessEnv, logDir: string): Promise<Cluster> {
  const slots: Array<Child | undefined> = []
  let starts = 0
  const expected = new Set<Child['child']>()
  const cluster: Cluster = {
    kills: 0, restarts: 0, unexpectedExits: [],
    urls: () => slots.filter((s): s is Child => s !== undefined).map((s) => s.url),
    async killOne() {
      const i = Math.floor(Math.random() * slots.length)
      const victim = slots[i]
      if (!victim) return
      slots[i] = undefined
      expected.add(victim.child)
      await new Promise((done) => { victim.child.once('exit', done); victim.child.kill('SIGKILL') })
      cluster.kills++
      await sleep(300 + Math.random() * 1500)
      slots[i] = await start()
      cluster.restarts++
    },
    async stopAll() {
      for (const s of slots) if (s) expected.add(s.child)
      await Promise.all(slots.map((s) => s?.stop()))
    },
  }
  const start = async () => {
    // The whole log of every start, the lines before `listening` too (where post recovery runs).
    const log = createWriteStream(join(logDir, `replica-start-${++starts}.log`))
    const child = await spawnListening('dist/src/cli/server.js', [], env, log)
    child.child.once('exit', (code, signal) => {
      if (!expected.has(child.child)) cluster.unexpectedExits.push(`pid ${child.child.pid} exited with ${code ?? signal}`)
    })
    return child
  }
  // One after the other: the first migrates the database, the others find it done.
  for (let i = 0; i < count; i++) slots.push(await start())
  return cluster
}

const SLACK_FAULTS: SlackFault[] = [
  { status: 429, headers: { 'retry-after': '1' } }, { status: 500 }, { status: 503 }, { reset: true },
  { lostAnswer: 'reset' }, { lostAnswer: 'hang' }, { delayMs: 1500 }, { error: 'ratelimited' },
]
const FAULTED_METHODS = ['chat.postMessage', 'chat.update', 'reactions.add', 'conversations.history', 'conversations.replies']

/** Queues random Slack faults (one call each) until `until`, then withdraws those not yet met. */
export async function injectSlackFaults(slack: FakeSlack, until: number, meanGapMs: number): Promise<{ queued: number; met: number }> {
  let queued = 0
  while (Date.now() < until) {
    const fault = SLACK_FAULTS[Math.floor(Math.random() * SLACK_FAULTS.length)]!
    slack.faults.push({ method: FAULTED_METHODS[Math.floor(Math.random() * FAULTED_METHODS.length)]!, fault })
    queued++
    await sleep(Math.random() * 2 * meanGapMs)
  }
  const unmet = slack.faults.length
  slack.faults.length = 0
  return { queued, met: queued - unmet }
}

/** Calls `act` at random moments (mean gap `meanGapMs`) until `until`, one at a time; returns how often. */
export async function atRandomMoments(until: number, meanGapMs: number, act: () => Promise<void>): Promise<number> {
  let times = 0
  for (;;) {
    await sleep(Math.random() * 2 * meanGapMs)
    if (Date.now() >= until) return times
    await act()
    times++
  }
}
