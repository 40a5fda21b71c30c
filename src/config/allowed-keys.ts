import type { Context, Failure, Struct } from 'superstruct'
import { configSchema } from './schema.ts'

type AnyStruct = Struct<unknown, unknown>

const context = (value: unknown): Context => ({ branch: [value], path: [] })

/** A union's members (a channel: an ID or `{ id, mentions }`), any other struct itself. */
const members = (struct: AnyStruct): AnyStruct[] => (struct.type === 'union' && Array.isArray(struct.schema) ? (struct.schema as AnyStruct[]).flatMap(members) : [struct])

/** The fields of `value` under `struct`, as superstruct walks them; a record yields each key twice (as key, then as value). */
const fields = (struct: AnyStruct, value: unknown) => members(struct).flatMap((member) => [...member.entries(value, context(value))])

/**
 * The keys the schema accepts beside an unknown one, read from the schema itself (so a key added later is
 * listed without touching this file). Walks the failure's path with superstruct's own `entries`, which also
 * resolve records, refinements and `dynamic` structs; an object yields its every field, an unknown key `never`.
 */
export function allowedKeys(failure: Failure, root: AnyStruct = configSchema as AnyStruct): string[] {
  const path = failure.path.map(String)
  let struct: AnyStruct | undefined = root
  for (let depth = 0; depth < path.length - 1 && struct; depth++) {
    struct = fields(struct, failure.branch[depth]).findLast(([key]) => String(key) === path[depth])?.[2] as AnyStruct | undefined
  }
  if (!struct) return []
  const known = fields(struct, failure.branch[path.length - 1]).filter(([, , field]) => field.type !== 'never').map(([key]) => String(key))
  return [...new Set(known)]
}
