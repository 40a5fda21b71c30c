import { isAlias, isMap, isPair, isScalar, isSeq, type Alias, type Document, type LineCounter, type YAMLMap } from 'yaml'
import type { ConfigProblem } from './config-problems.ts'

/**
 * Turns a parsed YAML document into plain data in one pass, in place of the library's `toJS`, whose
 * alias resolution rescans the document per alias (quadratic) and whose collection keys only print a process
 * warning. Refuses, with the line: duplicate keys (the library's own check is quadratic and is off), maps or
 * lists used as keys, tags that are not plain data (`!!set`, `!!binary`, timestamps, `!custom`), aliases
 * that loop or expand the document beyond a linear bound ("billion laughs"), and nesting far beyond
 * what a config needs.
 */

/** prherald's deepest key is mappings.owner.repo.paths.prefix.mentions.0 (7); the rest is headroom. */
export const MAX_DEPTH = 32
/** Aliases may expand the document to this many values plus one per character of the file. */
export const ALIAS_ALLOWANCE = 100_000
/** A file with hundreds of mistakes gets the first ones; the operator fixes those and loads again. */
const MAX_PROBLEMS = 20

const PLAIN_TAG = /^tag:yaml\.org,2002:(str|int|float|bool|null|map|seq)$/

export interface YamlData {
  data: unknown
  problems: ConfigProblem[]
}

interface Walk {
  lines: LineCounter
  problems: ConfigProblem[]
  /** The latest node defined under each anchor name so far, in document order. */
  anchors: Map<string, unknown>
  /** Converted anchored nodes: their value (shared by every alias, as the library does) and expanded size. */
  done: Map<unknown, { value: unknown; size: number }>
  values: number
  maxValues: number
  path: Array<string | number>
}

class Stop extends Error {}

export function yamlToData(doc: Document, lines: LineCounter, textLength: number): YamlData {
  const walk: Walk = {
    lines, problems: [], anchors: new Map(), done: new Map(),
    values: 0, maxValues: ALIAS_ALLOWANCE + textLength, path: [],
  }
  let data: unknown
  try {
    data = convert(doc.contents, walk, 0)
  } catch (error) {
    if (!(error instanceof Stop)) throw error
  }
  return { data: data ?? {}, problems: walk.problems }
}

function lineOf(node: unknown, lines: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range
  return range ? lines.linePos(range[0]).line : undefined
}

function problem(walk: Walk, node: unknown, message: string, options: { key?: string; stop?: boolean } = {}): void {
  walk.problems.push({ key: options.key ?? (walk.path.join('.') || '(top level)'), line: lineOf(node, walk.lines), message })
  if (options.stop || walk.problems.length >= MAX_PROBLEMS) throw new Stop()
}

function convert(node: unknown, walk: Walk, depth: number): unknown {
  if (node === null || node === undefined) return null
  walk.values++
  if (depth > MAX_DEPTH) {
    problem(walk, node, `is nested more than ${MAX_DEPTH} levels deep; a prherald configuration needs at most 7 (see the example config.yaml)`, { stop: true })
  }
  if (isAlias(node)) return resolveAlias(node, walk)
  const anchor = (node as { anchor?: string }).anchor
  if (anchor) walk.anchors.set(anchor, node)
  const before = walk.values
  const tag = (node as { tag?: string }).tag
  let value: unknown
  if (tag !== undefined && !PLAIN_TAG.test(tag)) {
    problem(walk, node, `is a YAML ${tag.replace(/^tag:yaml\.org,2002:/, '!!')} value; write a plain map, list, string or number without a tag`)
  } else if (isMap(node)) value = convertMap(node, walk, depth)
  else if (isSeq(node)) value = convertSeq(node.items, walk, depth)
  else if (isScalar(node)) {
    value = node.value
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      problem(walk, node, `is ${value instanceof Date ? 'a timestamp' : 'not a plain string, number or boolean'} (YAML 1.1 reads some dates and words so); quote it`)
    }
  } else problem(walk, node, 'is not a plain map, list, string or number')
  if (anchor) walk.done.set(node, { value, size: walk.values - before + 1 })
  return value
}

function resolveAlias(alias: Alias, walk: Walk): unknown {
  const target = walk.anchors.get(alias.source)
  if (target === undefined) {
    problem(walk, alias, `uses the alias *${alias.source}, but no anchor &${alias.source} comes before it; define the anchor first`)
    return undefined
  }
  const converted = walk.done.get(target)
  if (converted === undefined) {
    problem(walk, alias, `the alias *${alias.source} is inside the value it refers to, which would repeat forever; write the value out`, { stop: true })
    return undefined
  }
  walk.values += converted.size - 1
  if (walk.values > walk.maxValues) {
    problem(walk, alias, `aliases expand this file to more than ${walk.maxValues} values (an alias of an alias of …, a "billion laughs" document); ` +
      'reuse an anchor for a short list such as mentions, and write larger parts out', { stop: true })
  }
  return converted.value
}

function convertSeq(items: unknown[], walk: Walk, depth: number): unknown[] {
  const out: unknown[] = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    walk.path.push(i)
    if (isPair(item)) problem(walk, item.key, 'is a key-value pair inside a list (!!pairs or !!omap); write a plain list or map')
    const value = isPair(item) ? undefined : convert(item, walk, depth + 1)
    walk.path.pop()
    out.push(value)
  }
  return out
}

function convertMap(map: YAMLMap, walk: Walk, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < map.items.length; i++) {
    const { key: keyNode, value: valueNode } = map.items[i]!
    const key = keyOf(keyNode, walk)
    if (key === undefined) continue
    walk.path.push(key)
    if (Object.hasOwn(out, key)) {
      const first = map.items.slice(0, i).find((pair) => plainKey(pair.key, walk) === key)
      problem(walk, keyNode, `appears twice in the same map (first on line ${lineOf(first?.key, walk.lines) ?? '?'}); keep one of them`)
      walk.path.pop()
      continue
    }
    const value = convert(valueNode, walk, depth + 1)
    walk.path.pop()
    // `__proto__` (or `constructor`) must become an own key, never the object's prototype.
    if (key in out) Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
    else out[key] = value
  }
  return out
}

/** The string a scalar key (or an alias of one) stands for, or undefined for anything else. */
function plainKey(node: unknown, walk: Walk): string | undefined {
  const target = isAlias(node) ? walk.anchors.get(node.source) : node
  if (target === null || target === undefined) return ''
  if (!isScalar(target)) return undefined
  const tag = target.tag
  if (tag !== undefined && !PLAIN_TAG.test(tag)) return undefined
  const value = target.value
  if (value === null) return ''
  return ['string', 'number', 'boolean'].includes(typeof value) ? String(value) : undefined
}

function keyOf(node: unknown, walk: Walk): string | undefined {
  if (isAlias(node) && !walk.anchors.has(node.source)) {
    resolveAlias(node, walk) // reports the missing anchor
    return undefined
  }
  const key = plainKey(node, walk)
  if (key !== undefined) {
    if (isAlias(node) || (node as { anchor?: string } | null)?.anchor) convert(node, walk, 0)
    else walk.values++
    return key
  }
  problem(walk, node, isMap(node) || isSeq(node) || isAlias(node)
    ? 'has a map or list as a key (YAML "? [a, b]" or "{a: 1}: …"); keys are plain names such as an owner, a repository or a path'
    : isScalar(node) && typeof node.value === 'symbol'
      ? 'has a YAML merge key (<<), which prherald does not read; write the keys out (an anchor and alias can still share a list such as mentions)'
      : 'has a key that is not a plain name (a tagged or timestamp value); write the key as plain text')
  return undefined
}
