import fc from 'fast-check'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { githubExample } from '../helpers/github-examples.ts'

/**
 * Generators shared by the fuzz properties: real payloads (GitHub's own recorded examples, the Bitbucket
 * fixtures) and mutations of them, so that most cases are near-valid and reach deep into the decoders
 * instead of failing at the first field.
 */

/** Fixed seeds, so that a failure reproduces; fast-check prints the seed and path of a failing case anyway. */
export const SEEDS = { decoders: 20_240_501, config: 20_240_502, intakeUnsigned: 20_240_503, intakeSigned: 20_240_504 } as const

export interface RealDelivery {
  provider: Provider
  event: string
  payload: Record<string, unknown>
}

const GITHUB: Array<[string, string | undefined]> = [
  ['pull_request', 'opened'], ['pull_request', 'closed'], ['pull_request', 'reopened'], ['pull_request', 'edited'],
  ['pull_request', 'ready_for_review'], ['pull_request', 'converted_to_draft'], ['pull_request', 'synchronize'],
  ['pull_request_review', 'submitted'], ['pull_request_review', 'dismissed'], ['pull_request_review_comment', 'created'],
  ['issue_comment', 'created'], ['issues', 'opened'], ['push', undefined], ['ping', undefined],
]
const BITBUCKET = ['created', 'updated', 'approved', 'unapproved', 'changes_request_created', 'changes_request_removed', 'fulfilled', 'rejected', 'comment_created']

export const realDeliveries: RealDelivery[] = [
  ...GITHUB.flatMap(([event, action]) => {
    try {
      return [{ provider: 'github' as const, event, payload: githubExample(event, action) }]
    } catch {
      return [] // not every action has a recorded example; the others are enough
    }
  }),
  ...BITBUCKET.map((name) => ({ provider: 'bitbucket' as const, event: `pullrequest:${name}`, payload: bitbucketFixture(name) })),
  { provider: 'bitbucket', event: 'repo:push', payload: bitbucketFixture('repo-push') },
]

export const realOf = (provider: Provider) => realDeliveries.filter((d) => d.provider === provider)

/** Every path to a value in `value`, depth-first (objects and arrays), capped to keep generation cheap. */
function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (out.length > 400) return out
  if (Array.isArray(value)) value.forEach((v, i) => { out.push([...prefix, i]); pathsOf(v, [...prefix, i], out) })
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) { out.push([...prefix, k]); pathsOf(v, [...prefix, k], out) }
  }
  return out
}

type Op = { kind: 'delete' | 'replace' | 'proto'; at: number; value: unknown }

const op: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('delete', 'replace', 'replace', 'proto'),
  at: fc.nat(),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(null, '', 0, -1, 1.5, 2 ** 53, true, [], {}, '__proto__', 'constructor', 'a'.repeat(5000)),
  ),
})

/** A deep copy of `payload` with 1–4 fields deleted, replaced by other JSON, or given a `__proto__` key. */
function applyOps(payload: Record<string, unknown>, ops: Op[]): unknown {
  let copy: unknown = structuredClone(payload)
  for (const { kind, at, value } of ops) {
    const paths = pathsOf(copy)
    if (paths.length === 0) return value
    const path = paths[at % paths.length]!
    const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy)
    const key = path[path.length - 1]!
    if (kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1)
      else delete parent[key]
    } else if (kind === 'proto') {
      // What JSON.parse makes of `{"__proto__": …}`: an own property, not a prototype.
      parent[key] = JSON.parse(`{"__proto__": ${JSON.stringify(value) ?? 'null'}, "constructor": "x"}`)
    } else {
      parent[key] = value
    }
    if (path.length === 0) copy = value
  }
  return copy
}

export function mutatedPayload(payload: Record<string, unknown>): fc.Arbitrary<unknown> {
  return fc.array(op, { minLength: 1, maxLength: 4 }).map((ops) => applyOps(payload, ops))
}

/** A real delivery, its payload mutated, and an event name that is usually its own. */
export function mutatedDelivery(provider: Provider): fc.Arbitrary<{ event: string; payload: unknown }> {
  const names = [...new Set(realOf(provider).map((d) => d.event))]
  return fc.constantFrom(...realOf(provider)).chain((real) => fc.record({
    event: fc.oneof({ weight: 6, arbitrary: fc.constant(real.event) }, fc.constantFrom(...names, '', '__proto__', 'constructor', 'toString'), fc.string({ maxLength: 30 })),
    payload: fc.oneof({ weight: 8, arbitrary: mutatedPayload(real.payload) }, fc.constant(real.payload), fc.jsonValue({ maxDepth: 3 })),
  }))
}

/** Text mutations of a serialized body: truncation, a spliced-in string, a changed character. */
export function mutatedText(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: text.length }).map((n) => text.slice(0, n)),
    fc.tuple(fc.nat({ max: text.length }), fc.string({ maxLength: 20 })).map(([at, s]) => text.slice(0, at) + s + text.slice(at)),
    fc.tuple(fc.nat({ max: Math.max(0, text.length - 1) }), fc.string({ minLength: 1, maxLength: 1 })).map(([at, c]) => text.slice(0, at) + c + text.slice(at + 1)),
  )
}

/** Printable ASCII: what any HTTP client can put in a header value. */
export const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,60}$/)
