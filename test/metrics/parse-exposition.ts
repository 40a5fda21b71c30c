/** One sample of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses the exposition a scrape returns; a line that is neither a comment nor a sample fails the test. */
export function parseExposition(text: string): Sample[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => {
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`)
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!]))
    const raw = match[3]!
    return { name: match[1]!, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) }
  })
}

/**
 * The sum of the samples named `name` whose labels include `labels` (`{}`: all of them); a label given as ''
 * must be absent or empty. Fails when no sample matches: a missing series is not a zero.
 */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string>): number {
  const matching = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => (s.labels[k] ?? '') === v))
  if (matching.length === 0) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`)
  return matching.reduce((sum, s) => sum + s.value, 0)
}
