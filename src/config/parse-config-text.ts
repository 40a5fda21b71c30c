import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import type { ConfigProblem } from './config-problems.ts'
import { yamlToData } from './yaml-to-data.ts'

export interface ParsedConfig {
  data: unknown
  /** The line of the deepest key or item of `path` present in the file, or undefined. */
  lineOf(path: ReadonlyArray<string | number>): number | undefined
  /** The text of a 1-based line. */
  lineText(line: number): string
}

export type ParseResult = { ok: true; parsed: ParsedConfig } | { ok: false; problems: ConfigProblem[] }

/**
 * YAML text to plain data, linear in the text: the library's duplicate-key check is quadratic in the size of
 * a map (minutes for one owner with 75,000 repositories), so it is off and yamlToData finds duplicates.
 */
export function parseConfigText(text: string): ParseResult {
  const lines = new LineCounter()
  let doc: Document
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: true })
  } catch (cause) {
    // The library reports its refusals as doc.errors; this is for anything it throws instead.
    return { ok: false, problems: [{ key: '(file)', message: `the YAML reader refused it (${String(cause).split('\n')[0]}); check the file is YAML` }] }
  }
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.slice(0, 20).map((e) => ({
        key: `line ${e.linePos?.[0].line ?? '?'}`,
        message: e.code === 'RESOURCE_EXHAUSTION'
          ? 'nested too deeply for the YAML reader (hundreds of levels); a prherald configuration needs at most 7'
          : `${yamlReason(e.message)}${e.linePos ? ` (column ${e.linePos[0].col})` : ''}; fix the YAML syntax there`,
      })),
    }
  }
  const { data, problems } = yamlToData(doc, lines, text.length)
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    parsed: {
      data,
      lineOf: (path) => lineOfPath(doc, lines, path),
      lineText: (line) => text.slice(lines.lineStarts[line - 1] ?? text.length, lines.lineStarts[line] ?? text.length).replace(/\r?\n$/, ''),
    },
  }
}

/** Only called for the few keys an error names: a scan of each map on the way is fine there. */
function lineOfPath(doc: Document, lines: LineCounter, path: ReadonlyArray<string | number>): number | undefined {
  let node: unknown = doc.contents
  let offset: number | undefined
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment))
      if (!pair) break
      offset = (pair.key as { range?: [number, number, number] }).range?.[0]
      node = pair.value
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment]
      const range = (node as { range?: [number, number, number] } | undefined)?.range
      if (!range) break
      offset = range[0]
    } else break
  }
  return offset === undefined ? undefined : lines.linePos(offset).line
}

/**
 * The yaml library's reason without its own place: with prettyErrors its first line ends "at line 5,
 * column 1:" (the excerpt follows), which the problem's key and column already say.
 */
function yamlReason(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '')
}
