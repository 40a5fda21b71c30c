/**
 * What differs from one run of a recipe to the next, replaced by fixed stand-ins so that a sample block only
 * changes when the commands print something else. Every rule is listed here; nothing else is rewritten.
 */
export interface SampleVariables {
  /** Literal values of this run (a temporary directory, a port) and what the docs show instead. */
  literals: Array<readonly [actual: string, shown: string]>
}

/** Every time of day becomes this one: the docs' samples all happen at the same instant. */
export const SAMPLE_TIME = '2026-11-23T00:28:00.000Z'

/** Check lines (with their indented `fix:` line) whose order follows the answers' arrival, not the code. */
const CHECK_LINE = /^(\s*)(OK|SKIP|FAIL)\s+(slack-auth|mapping|slack-channel|webhook|lock)\s+(\S+)/
const CHECK_ORDER = ['slack-auth', 'mapping', 'slack-channel', 'webhook', 'lock']

export function normaliseSample(text: string, variables: SampleVariables): string {
  let out = text.replace(/\r\n/g, '\n')
  // Longest first, so a temporary directory wins over a prefix of it.
  for (const [actual, shown] of [...variables.literals].sort((a, b) => b[0].length - a[0].length)) {
    // A port is a number: replaced only as a whole word, never inside a longer number.
    out = /^\d+$/.test(actual) ? out.replace(new RegExp(`\\b${actual}\\b`, 'g'), shown) : out.replaceAll(actual, shown)
  }
  out = out
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, SAMPLE_TIME)
    // Slack message ts (seconds.micros from the clock), numbered in order of first appearance.
    .replace(/\b1\d{9}\.\d{6}\b/g, numbered(new Map(), (n) => `1700000000.${String(n * 100).padStart(6, '0')}`))
    // The demo's throw-away directory (mkdtemp's six random characters).
    .replace(/prherald-demo-[A-Za-z0-9]{6}/g, 'prherald-demo-XXXXXX')
    // The smoke test's random run id.
    .replace(/prherald smoke test [0-9a-f]{6,}/g, 'prherald smoke test 5f0c9a1e')
    // Durations: `duration_ms=12`, `"duration_ms":12`, `in 12 ms`.
    .replace(/(duration_ms[=":]+)\d+/g, '$12').replace(/\b\d+(\.\d+)? ?ms\b/g, '12 ms')
  // Trailing blanks (an empty list printed after a space) would be invisible in the docs yet fail the test.
  return sortConcurrentLines(out).replace(/[ \t]+$/gm, '')
}

function numbered(seen: Map<string, string>, shown: (n: number) => string): (value: string) => string {
  return (value) => {
    if (!seen.has(value)) seen.set(value, shown(seen.size + 1))
    return seen.get(value)!
  }
}

/**
 * Lines printed in the order concurrent answers arrive are sorted: each run of check lines (slack-auth first,
 * then by target and check), and each run of the fake Slack's `conversations.info` lines.
 */
function sortConcurrentLines(text: string): string {
  const lines = text.split('\n')
  const out: string[] = []
  for (let i = 0; i < lines.length;) {
    if (CHECK_LINE.test(lines[i]!)) {
      const groups: string[][] = []
      while (i < lines.length && (CHECK_LINE.test(lines[i]!) || (groups.length > 0 && /^\s+fix: /.test(lines[i]!)))) {
        if (CHECK_LINE.test(lines[i]!)) groups.push([])
        groups.at(-1)!.push(lines[i++]!)
      }
      out.push(...groups.sort((a, b) => compare(checkKey(a[0]!), checkKey(b[0]!))).flat())
    } else if (lines[i]!.startsWith('[fake slack] conversations.info')) {
      const run: string[] = []
      while (i < lines.length && lines[i]!.startsWith('[fake slack] conversations.info')) run.push(lines[i++]!)
      out.push(...run.sort())
    } else out.push(lines[i++]!)
  }
  return out.join('\n')
}

function checkKey(line: string): string[] {
  const [, , , check = '', target = ''] = CHECK_LINE.exec(line) ?? []
  return [check === 'slack-auth' ? '0' : '1', target, String(CHECK_ORDER.indexOf(check)), line]
}

function compare(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1
  return 0
}
