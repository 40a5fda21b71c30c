/** WARN: works, but something is missing that the operator should add (never fails a run). */
export type CheckStatus = 'OK' | 'WARN' | 'SKIP' | 'FAIL'

export type CheckName = 'mapping' | 'slack-auth' | 'slack-channel' | 'webhook' | (string & {})

/** One answer of one check: what was checked, on what, and, on FAIL, what the operator should do. */
export interface CheckResult {
  name: CheckName
  /** `owner/repo`, `owner/*`, `SLACK_BOT_TOKEN`, a file... whatever the check looked at. */
  target: string
  status: CheckStatus
  /** One line, never a secret. */
  reason: string
  fix?: string | undefined
}

export function hasFailure(results: readonly CheckResult[]): boolean {
  return results.some((r) => r.status === 'FAIL')
}

export function countByStatus(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { OK: 0, WARN: 0, SKIP: 0, FAIL: 0 }
  for (const r of results) counts[r.status]++
  return counts
}

/** `3 OK, 1 SKIP, 0 FAIL`, with the WARN count after OK when there is one. */
export function formatCounts(results: readonly CheckResult[]): string {
  const c = countByStatus(results)
  return `${c.OK} OK${c.WARN > 0 ? `, ${c.WARN} WARN` : ''}, ${c.SKIP} SKIP, ${c.FAIL} FAIL`
}

/**
 * One line per check, columns aligned across the batch; a FAIL's (or WARN's) fix goes on the line below it, indented,
 * so that the line itself stays greppable (`grep ^FAIL`).
 */
export function formatChecks(results: readonly CheckResult[]): string[] {
  const nameWidth = Math.max(0, ...results.map((r) => r.name.length))
  const targetWidth = Math.max(0, ...results.map((r) => r.target.length))
  const lines: string[] = []
  for (const r of results) {
    lines.push(`${r.status.padEnd(4)}  ${r.name.padEnd(nameWidth)}  ${r.target.padEnd(targetWidth)}  ${r.reason}`.trimEnd())
    if ((r.status === 'FAIL' || r.status === 'WARN') && r.fix) lines.push(`      fix: ${r.fix}`)
  }
  return lines
}
