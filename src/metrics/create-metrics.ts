import { createRequire } from 'node:module'
import type * as PromClient from 'prom-client'
import type { Provider } from '../../machines/pull-request-event.ts'
import { SLACK_RATE_LIMITS, type SlackMethod } from '../slack/rate-limits.ts'
import type { PendingDeliveryStats } from '../store/store.ts'
import type { DeliveryOutcome } from './delivery-outcome.ts'
import { slackCallOutcome } from './slack-call-outcome.ts'

export type DigestRunResult = 'posted' | 'skipped' | 'failed'

/** What the gauges read at scrape time. Functions, so the sources may be built after the metrics. */
export interface MetricsSources {
  /** The configured hosts: their delivery series start at 0. */
  providers: readonly Provider[]
  /** One store query per scrape. */
  pendingDeliveries: () => Promise<PendingDeliveryStats>
  /** Unsigned bodies on Slack's routes cut so far to make room for newer ones (slack-body-lane.ts). */
  slackBodiesCut?: () => number
  /** With slack.socket_mode only: the socket's gauges exist (read from what `watch` is given). */
  socketMode?: boolean
  now?: () => number
}

export interface WatchedParts {
  /** Deliveries handed to the mailboxes and not applied yet, and the pull requests they belong to. */
  mailboxes: () => { queued: number; active: number }
  /** Whether the socket is open, and how many times it was opened again. */
  slackSocket: () => { open: boolean; reconnects: number }
}

export interface Metrics {
  /** One webhook delivery answered: what it came to, and seconds from the request to the answer. */
  delivery(provider: Provider, outcome: DeliveryOutcome, seconds: number): void
  /** One Slack call ended (error undefined: it went through). */
  slackCall(method: SlackMethod, error?: unknown): void
  /** One digest run ended: posted, nothing to post (skipped), or failed. */
  digestRun(result: DigestRunResult): void
  /**
   * The gauges of parts built after the metrics (which the parts before them report to): the mailboxes'
   * queued deliveries and active pull requests, and the socket's state. They read 0 until watched.
   */
  watch(parts: Partial<WatchedParts>): void
  /** The Prometheus text exposition of everything above plus the process metrics. */
  render(): Promise<string>
  contentType: string
}

// prom-client's index also builds its default metrics, whose CPU counter loads @opentelemetry/api (for
// exemplars prherald does not use), and its cluster, Pushgateway and Summary code: 3.6 MiB at start against
// 1.3 for the four classes, taken from their own files (the same module instances the index hands out). The
// default metrics come with the index at the first scrape (render below). docs/performance.md, "Start memory".
const promFile = createRequire(import.meta.url)
const Registry = promFile('prom-client/lib/registry') as typeof PromClient.Registry
const Counter = promFile('prom-client/lib/counter') as typeof PromClient.Counter
const Gauge = promFile('prom-client/lib/gauge') as typeof PromClient.Gauge
const Histogram = promFile('prom-client/lib/histogram') as typeof PromClient.Histogram

/** Acknowledgements should take milliseconds; the git hosts give up at 10 s, the top bucket. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/**
 * The service's metrics on a registry of its own (never prom-client's global one: tests run several services
 * in one process). Every label value comes from a fixed set; nothing from a delivery (pull request, repository,
 * title) ever becomes a label. Series that alerts watch start at 0, so `increase()` sees their first event.
 */
export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry()
  const registers = [registry]
  const now = sources.now ?? Date.now
  // The process metrics (CPU, memory, event loop lag, GC), registered at the first scrape: the GC and
  // event-loop figures count from then, which a scraper's first interval covers. Required in the scrape's own
  // turn, not import()ed, so that its answer is written before the event loop reads anything else. prom-client
  // cannot stop their observers (prometheus/client_js#494, #500), so each service scraped keeps one of each
  // for the life of the process: one in production, a handful in a test file.
  let processMetrics = false
  const withProcessMetrics = () => {
    if (processMetrics) return
    processMetrics = true
    const { collectDefaultMetrics } = promFile('prom-client') as typeof PromClient
    collectDefaultMetrics({ register: registry })
  }

  const deliveries = new Counter({
    name: 'prherald_deliveries_total', help: 'Webhook deliveries answered, by provider, result and reason (ignore or reject reason)',
    labelNames: ['provider', 'result', 'reason'] as const, registers,
  })
  const ack = new Histogram({
    name: 'prherald_delivery_ack_seconds', help: 'Seconds from a webhook request to its answer, by provider and result',
    labelNames: ['provider', 'result'] as const, buckets: ACK_BUCKETS, registers,
  })
  const slackCalls = new Counter({
    name: 'prherald_slack_calls_total', help: 'Slack Web API calls made, by method and outcome (rate_limited is an HTTP 429)',
    labelNames: ['method', 'outcome'] as const, registers,
  })
  const digestRuns = new Counter({
    name: 'prherald_digest_runs_total', help: 'Digest runs, by result: posted, skipped (nothing to post) or failed',
    labelNames: ['result'] as const, registers,
  })
  // Read at scrape time: a gauge's value, or a counter's total so far as its source keeps it.
  const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
    new Gauge({ name, help, registers, async collect() { this.set(await read()) } })
  const total = (name: string, help: string, read: () => number) =>
    new Counter({ name, help, registers, collect() { this.reset(); this.inc(read()) } })
  total('prherald_slack_bodies_cut_total', 'Unsigned request bodies on Slack\'s routes cut while still arriving, to make room for newer ones (a held-connection flood)',
    () => sources.slackBodiesCut?.() ?? 0)
  const watched: WatchedParts = { mailboxes: () => ({ queued: 0, active: 0 }), slackSocket: () => ({ open: false, reconnects: 0 }) }
  const socket = () => watched.slackSocket()
  if (sources.socketMode) {
    // Slack's requests arrive only while the socket is open; a counter that keeps climbing is a socket that keeps dropping.
    gauge('prherald_slack_socket_connected', 'Socket Mode: 1 while the WebSocket to Slack is open, 0 while connecting, reconnecting or closed', () => (socket().open ? 1 : 0))
    total('prherald_slack_socket_reconnects_total', 'Socket Mode: WebSockets opened after the first (a refresh Slack asked for, or after a dropped socket)', () => socket().reconnects)
  }
  for (const provider of sources.providers) for (const result of ['accepted', 'duplicate'] as const) deliveries.inc({ provider, result, reason: '' }, 0)
  for (const method of Object.keys(SLACK_RATE_LIMITS)) for (const outcome of ['ok', 'rate_limited']) slackCalls.inc({ method, outcome }, 0)
  for (const result of ['posted', 'skipped', 'failed'] as const) digestRuns.inc({ result }, 0)

  gauge('prherald_queued_deliveries', 'Deliveries in the per-pull-request mailboxes of this process, waiting or being applied', () => watched.mailboxes().queued)
  gauge('prherald_active_mailboxes', 'Pull requests with deliveries waiting or being applied in this process', () => watched.mailboxes().active)
  // A scrape collects every metric at once, so the three below share one query. A store that cannot answer
  // (its file is gone) reads as NaN, not 0: an alert must not clear because the count is unknown.
  let stats: Promise<PendingDeliveryStats | undefined> | undefined
  const readStats = () => (stats ??= sources.pendingDeliveries().catch(() => undefined).finally(() => { stats = undefined }))
  gauge('prherald_pending_deliveries', 'Deliveries acknowledged but not yet applied, in the store (replayed at the next start)',
    async () => (await readStats())?.count ?? Number.NaN)
  gauge('prherald_parked_deliveries', 'Deliveries parked after too many failed batches: kept, not retried until prherald-migrate replay-parked',
    async () => (await readStats())?.parked ?? Number.NaN)
  gauge('prherald_oldest_pending_delivery_age_seconds', 'Age of the oldest delivery not yet applied, 0 when none is pending', async () => {
    const read = await readStats()
    if (!read) return Number.NaN
    return read.oldestReceivedAt === undefined ? 0 : Math.max(0, (now() - read.oldestReceivedAt) / 1000)
  })

  return {
    delivery(provider, outcome, seconds) {
      deliveries.inc({ provider, result: outcome.result, reason: outcome.reason ?? '' })
      ack.observe({ provider, result: outcome.result }, seconds)
    },
    slackCall: (method, error) => slackCalls.inc({ method, outcome: slackCallOutcome(error) }),
    digestRun: (result) => digestRuns.inc({ result }),
    watch: (parts) => void Object.assign(watched, parts),
    render: () => {
      withProcessMetrics()
      return registry.metrics()
    },
    contentType: registry.contentType,
  }
}
