/**
 * Safe readers over `unknown` JSON. Decoders mirror only the fields they read and must never throw on a
 * payload of the wrong shape, so every read checks its type and answers undefined otherwise.
 */
export type JsonObject = Record<string, unknown>

export function obj(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined
}

export function at(value: unknown, ...path: string[]): unknown {
  let current: unknown = value
  for (const key of path) {
    const o = obj(current)
    if (!o || !Object.hasOwn(o, key)) return undefined
    current = o[key]
  }
  return current
}

export function str(value: unknown, ...path: string[]): string | undefined {
  const v = at(value, ...path)
  return typeof v === 'string' ? v : undefined
}

export function int(value: unknown, ...path: string[]): number | undefined {
  const v = at(value, ...path)
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined
}

export function bool(value: unknown, ...path: string[]): boolean | undefined {
  const v = at(value, ...path)
  return typeof v === 'boolean' ? v : undefined
}
