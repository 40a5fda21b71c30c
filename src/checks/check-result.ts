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
  /** A FAIL because the service did not answer (unreachable, 5xx, rate limited), not a refusal: a later run may pass. */
  unavailable?: boolean
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

export interface CheckColumns {
  name: number
  target: number
}

/**
 * One check as its line, and on FAIL (or WARN) its fix on the line below, indented, so the line stays greppable
 * (`grep ^FAIL`).
 */
export function formatCheck(r: CheckResult, columns: CheckColumns): string[] {
  const line = `${r.status.padEnd(4)}  ${r.name.padEnd(columns.name)}  ${r.target.padEnd(columns.target)}  ${r.reason}`.trimEnd()
  return (r.status === 'FAIL' || r.status === 'WARN') && r.fix ? [line, `      fix: ${r.fix}`] : [line]
}

/** One line per check, columns aligned across the batch. */
export function formatChecks(results: readonly CheckResult[]): string[] {
  const columns = {
    name: Math.max(0, ...results.map((r) => r.name.length)),
    target: Math.max(0, ...results.map((r) => r.target.length)),
  }
  return results.flatMap((r) => formatCheck(r, columns))
}

/**
 * Prints each result the moment it arrives, for checks that finish one by one. The columns cannot be fitted
 * to results not yet known, so they are fitted to the targets known up front (a longer one just pushes its
 * reason right).
 */
export function checkPrinter(print: (line: string) => void, knownTargets: readonly string[]): (result: CheckResult) => void {
  const columns = { name: 'slack-channel'.length, target: Math.max(0, ...knownTargets.map((t) => t.length)) }
  return (result) => {
    for (const line of formatCheck(result, columns)) print(line)
  }
}
