import { HTTPResponse } from 'h3'
import type { Metrics } from './create-metrics.ts'

/** `GET /metrics`: the Prometheus text exposition, collected (store query included) at each scrape. */
export function metricsRoute(metrics: Pick<Metrics, 'render' | 'contentType'>) {
  return async (): Promise<HTTPResponse> =>
    new HTTPResponse(await metrics.render(), { status: 200, headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' } })
}
