import { Agent, request } from 'node:http'

export interface LoadResult {
  completed: number
  failed: number
  /** Why each failed: the status (`503`) or the error's code (`ECONNRESET`), with how many. */
  failures: Record<string, number>
  seconds: number
  perSecond: number
  p50: number
  p99: number
}

export interface Delivery {
  headers: Record<string, string>
  body: Buffer
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

function post(agent: Agent, url: URL, delivery: Delivery): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST', agent,
      headers: { ...delivery.headers, 'content-length': String(delivery.body.length) },
    }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(delivery.body)
  })
}

/**
 * Sends `total` deliveries over `concurrency` keep-alive connections and measures the time from sending
 * a request to its acknowledgement. Bounded in count and in time (no new request after `maxSeconds`);
 * every target is on 127.0.0.1.
 */
export async function runLoad(url: string | readonly string[], next: (i: number) => Delivery, options: { total: number; concurrency: number; maxSeconds?: number }): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency })
  // Several urls: delivery i goes to url i mod n, a round-robin load balancer in front of replicas.
  const targets = (typeof url === 'string' ? [url] : url).map((u) => new URL(u))
  const latencies: number[] = []
  let issued = 0
  let failed = 0
  const failures: Record<string, number> = {}
  const fail = (why: string) => {
    failed++
    failures[why] = (failures[why] ?? 0) + 1
  }
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round((options.maxSeconds ?? 60) * 1e9))
  const worker = async () => {
    while (issued < options.total && process.hrtime.bigint() < deadline) {
      const target = targets[issued % targets.length]!
      const delivery = next(issued++)
      const t0 = process.hrtime.bigint()
      try {
        const status = await post(agent, target, delivery)
        if (status !== 200) fail(String(status))
      } catch (error) {
        fail((error as NodeJS.ErrnoException).code ?? (error as Error).message)
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return { completed: latencies.length - failed, failed, failures, seconds, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}
