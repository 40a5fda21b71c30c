import { formatListen as address } from '../config/parse-values.ts'
import type { Settings } from '../config/settings.ts'

/** Where `GET /metrics` is served, for `prherald-config list`. */
export function formatMetricsListen(settings: Pick<Settings, 'listen' | 'metricsListen'>): string {
  return settings.metricsListen
    ? `server.metrics_listen: ${address(settings.metricsListen)} (GET /metrics there only; the webhook listener answers it 404)`
    : `server.metrics_listen: not set (GET /metrics on the webhook listener ${address(settings.listen)}; keep your reverse proxy from forwarding it)`
}
