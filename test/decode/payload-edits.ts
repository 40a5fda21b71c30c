type Json = Record<string, any>

/** Sets a dotted path in a payload. The parent must exist, so a test never edits a field the payload lacks by accident. */
export function put(root: Json, path: string, value: unknown): Json {
  const keys = path.split('.')
  const last = keys.pop()!
  const parent = keys.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root)
  if (typeof parent !== 'object' || parent === null) throw new Error(`test bug: no parent for ${path}`)
  ;(parent as Json)[last] = value
  return root
}

/** Deletes a dotted path from a payload; it must exist. */
export function drop(root: Json, path: string): Json {
  const keys = path.split('.')
  const last = keys.pop()!
  const parent = keys.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], root)
  if (typeof parent !== 'object' || parent === null || !(last in parent)) throw new Error(`test bug: nothing at ${path}`)
  delete (parent as Json)[last]
  return root
}

/** Replaces the nth value (depth-first, wrapping) anywhere in a JSON tree, so every nesting level gets hit. */
export function replaceNth(root: Json, n: number, value: unknown): void {
  const slots: Array<[Json, string]> = []
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    for (const [key, child] of Object.entries(node)) {
      slots.push([node as Json, key])
      walk(child)
    }
  }
  walk(root)
  const slot = slots[n % slots.length]
  if (slot) slot[0][slot[1]] = value
}
