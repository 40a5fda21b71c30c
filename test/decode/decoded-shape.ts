import { isIgnored, type Decoded, type EventKind, type IgnoreReason, type Provider } from '../../machines/pull-request-event.ts'

/**
 * A property for decoder fuzzing: the result is either one of `reasons`, or an event of `provider` whose every
 * field has the type and range the rest of prherald assumes.
 */
export function wellFormedFor(provider: Provider, kinds: readonly EventKind[], reasons: readonly IgnoreReason[]) {
  return (d: Decoded): boolean => {
    if (isIgnored(d)) return reasons.includes(d.reason)
    const text = [d.owner, d.repo, d.pr.url, d.pr.author, d.pr.createdAt, d.pr.updatedAt, d.actor.login]
    return d.provider === provider && kinds.includes(d.kind) && Number.isSafeInteger(d.number) && d.number > 0
      && text.every((t) => typeof t === 'string' && t !== '') && typeof d.pr.title === 'string'
      && typeof d.pr.draft === 'boolean' && typeof d.actor.isBot === 'boolean' && ['open', 'closed', 'merged'].includes(d.pr.state)
  }
}
