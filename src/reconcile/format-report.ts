import type { ReconcileReport } from './run-reconcile.ts'

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * What prherald-reconcile prints (and a server hand-off answers): one line per pull request changed (or, in
 * a dry run, that would change) or that could not be checked, one per missed delivery, then a summary.
 * Pull requests already right get no line.
 */
export function formatReport(report: ReconcileReport): string[] {
  const { pullRequests: prs, deliveries, dryRun } = report
  const lines: string[] = []
  for (const line of prs.lines) {
    if (line.changes) lines.push(`${dryRun ? 'would change' : 'changed'} ${line.pullRequest}: ${line.changes.join(', ')}`)
    else lines.push(`failed ${line.pullRequest}: ${line.error}${line.fix ? ` (fix: ${line.fix})` : ''}`)
  }
  for (const d of deliveries?.missed ?? []) {
    const verb = d.redelivered ? 'redelivered' : dryRun ? 'would redeliver' : 'missed (not redelivered: no server is running to receive it)'
    lines.push(`${verb} ${d.repository} delivery ${d.guid} ${d.event} of ${d.deliveredAt} (answered ${d.statusCode || 'nothing'})`)
  }
  for (const p of deliveries?.problems ?? []) lines.push(`webhook log of ${p.repository} not read: ${p.message}${p.fix ? ` (fix: ${p.fix})` : ''}`)
  if (prs.stopped) lines.push(`stopped: ${prs.stopped.message}${prs.stopped.fix ? ` (fix: ${prs.stopped.fix})` : ''}`)

  const parts = [`${dryRun ? 'would change' : 'changed'} ${prs.changed}`, `${prs.unchanged} already right`]
  if (prs.failed > 0) parts.push(`${prs.failed} failed`)
  if (prs.notChecked > 0) parts.push(`${prs.notChecked} not checked`)
  let summary = `${plural(prs.total, 'open or draft pull request')}: ${parts.join(', ')}`
  if (deliveries) {
    const redelivered = deliveries.missed.filter((d) => d.redelivered).length
    summary += `; ${plural(deliveries.missed.length, 'missed delivery', 'missed deliveries')}` + (redelivered > 0 ? `, ${redelivered} redelivered` : '')
  }
  lines.push(summary)
  return lines
}

/**
 * A run that could not check every pull request: the command exits non-zero. A webhook log it could not
 * read is printed but does not fail the run (an organisation's hook, say, is not a repository's).
 */
export const reportFailed = (report: ReconcileReport) => report.pullRequests.failed > 0 || report.pullRequests.stopped !== undefined
