import type { Logger } from '../log/logger.ts'
import type { ReconcileReport } from './run-reconcile.ts'

/** A server's reconcile in its log: a line per pull request changed or not checked, per missed delivery, and the summary. */
export function logReport(logger: Logger, report: ReconcileReport): void {
  const { pullRequests: prs, deliveries } = report
  for (const line of prs.lines) {
    if (line.changes) logger.info('reconcile: pull request brought to its state on the git host', { pr: line.pullRequest, changes: line.changes })
    else logger.warn('reconcile: pull request not checked', { pr: line.pullRequest, error: line.error, fix: line.fix })
  }
  for (const d of deliveries?.missed ?? []) {
    logger.info('reconcile: redelivery of a missed delivery requested', { repository: d.repository, delivery_id: d.guid, event: d.event, delivered_at: d.deliveredAt, status_code: d.statusCode })
  }
  for (const p of deliveries?.problems ?? []) logger.warn('reconcile: webhook delivery log not read', { repository: p.repository, error: p.message, fix: p.fix })
  if (prs.stopped) logger.warn('reconcile stopped before checking every pull request', { error: prs.stopped.message, fix: prs.stopped.fix })
  logger.info('reconcile finished', {
    pull_requests: prs.total, changed: prs.changed, unchanged: prs.unchanged, failed: prs.failed, not_checked: prs.notChecked,
    missed_deliveries: deliveries?.missed.length, redelivered: deliveries?.missed.filter((d) => d.redelivered).length,
  })
}
