import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionKey } from '../config/settings.ts'
import { renderMessage, type RenderedMessage } from '../slack/render-message.ts'
import type { MessageTarget } from './message-targets.ts'

/** One Slack write. Reactions are emoji names, already mapped from the machine's reaction keys. */
export type SlackChange =
  | { type: 'post'; message: RenderedMessage }
  | { type: 'update'; message: RenderedMessage }
  | { type: 'addReaction'; name: string }
  | { type: 'removeReaction'; name: string }
  /** chat.delete, and the row is forgotten: only for a finished smoke test (smoke-cleanup.ts). */
  | { type: 'delete' }

/** What one channel's message needs, in order. */
export interface MessagePlan {
  channel: string
  mentions: string[]
  /** The message's ts; undefined for a message still to be posted. */
  ts: string | undefined
  changes: SlackChange[]
}

/** A message as it stands: where it is and the lifecycle it shows (undefined: not posted yet). */
export interface ShownMessage {
  channel: string
  mentions: string[]
  ts: string | undefined
  shown: StoredLifecycle | undefined
}

export interface PlanInput {
  /** The pull request's stored messages that are to show `next`. */
  messages: ShownMessage[]
  /** Channels the pull request is announced in now (none of them holds a message of it yet). */
  announceIn: MessageTarget[]
  next: StoredLifecycle
  reactions: Record<ReactionKey, string>
}

const renderFor = (lifecycle: StoredLifecycle, mentions: readonly string[]) => renderMessage({ lifecycle, mentions })

/**
 * The calls that bring one message from what it shows to `next`. Pure and state-based: a message is
 * updated only when its render would change (chat.update is rate-limited, and many deliveries change
 * nothing a reader sees), and reactions follow the difference between the two reaction sets. A new
 * message is posted and then gets every reaction `next` carries.
 */
export function planMessage(message: ShownMessage, next: StoredLifecycle, reactions: Record<ReactionKey, string>): SlackChange[] {
  const wanted = renderFor(next, message.mentions)
  const name = (key: ReactionKey) => reactions[key]
  if (message.ts === undefined || message.shown === undefined) {
    return [{ type: 'post', message: wanted }, ...next.context.reactions.map((key) => ({ type: 'addReaction', name: name(key) }) as const)]
  }
  const changes: SlackChange[] = []
  if (JSON.stringify(renderFor(message.shown, message.mentions)) !== JSON.stringify(wanted)) changes.push({ type: 'update', message: wanted })
  const before = message.shown.context.reactions
  const after = next.context.reactions
  for (const key of after) if (!before.includes(key)) changes.push({ type: 'addReaction', name: name(key) })
  for (const key of before) if (!after.includes(key)) changes.push({ type: 'removeReaction', name: name(key) })
  return changes
}

/**
 * Every stored message of the pull request brought to `next`, then the new announcements. A plan may have
 * no changes: its row is still saved, so that it records the deliveries it now reflects.
 */
export function planChanges(input: PlanInput): MessagePlan[] {
  const announced: ShownMessage[] = input.announceIn.map((t) => ({ channel: t.channel, mentions: t.mentions, ts: undefined, shown: undefined }))
  return [...input.messages, ...announced]
    .map((m) => ({ channel: m.channel, mentions: m.mentions, ts: m.ts, changes: planMessage(m, input.next, input.reactions) }))
}
