import { isIgnored, type Decoded, type EventKind, type IgnoreReason, type Provider } from '../../src/decode/pull-request-event.ts'

type Json = Record<string, any>

/**
 * A property for decoder fuzzing: the result is either one of `reasons`, or an event of `provider` whose every
 * field has the type and range the rest of prherald assumes.
 */
export function wellFormedFor(provider: Provider, kinds: readonly EventKind[], reasons: readonly IgnoreReason[]) {
  return (d: Decoded): boolean => {
    if (isIgnored(d)) return reasons.includes(d.reason)
    const text = [d.owner, d.repo, d.pr.url, d.pr.author, d.pr.createdAt, d.actor.login]
    return d.provider === provider && kinds.includes(d.kind) && Number.isSafeInteger(d.number) && d.number > 0
      && text.every((t) => typeof t === 'string' && t !== '') && typeof d.pr.title === 'string'
      && typeof d.pr.draft === 'boolean' && typeof d.actor.isBot === 'boolean' && ['open', 'closed', 'merged'].includes(d.pr.state)
  }
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
