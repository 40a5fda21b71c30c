import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionSettings } from '../config/settings.ts'
import { reactionNames } from '../config/reactions.ts'
import { renderMessage, type RenderedMessage } from '../slack/render-message.ts'
import { NO_BUTTON, type RenderOptions } from '../slack/render-review.ts'
import type { People } from '../slack/person-names.ts'
import type { MessageTarget } from '../routing/message-targets.ts'

/** One Slack write. Reactions are emoji names, already mapped from the machine's reaction keys. */
export type SlackChange =
  | { type: 'post'; message: RenderedMessage }
  | { type: 'update'; message: RenderedMessage }
  | { type: 'addReaction'; name: string }
  | { type: 'removeReaction'; name: string }

/** What one channel's message needs, in order, and the emoji it carries afterwards. */
export interface MessagePlan {
  channel: string
  mentions: string[]
  /** The message's ts; undefined for a message still to be posted. */
  ts: string | undefined
  changes: SlackChange[]
  /** The emoji names the message carries once the plan ran: saved with its row. */
  reactions: string[]
}

/** A message as it stands: where it is, the lifecycle it shows (undefined: not posted yet) and its emoji. */
export interface ShownMessage {
  channel: string
  mentions: string[]
  ts: string | undefined
  shown: StoredLifecycle | undefined
  /** The emoji names the message carries, as recorded with its row. */
  reactions: readonly string[]
}

export interface PlanInput {
  /** The pull request's stored messages that are to show `next`. */
  messages: ShownMessage[]
  /** Channels the pull request is announced in now (none of them holds a message of it yet). */
  announceIn: MessageTarget[]
  next: StoredLifecycle
  /** The repository's reactions, after inheritance. */
  reactions: ReactionSettings
  /** Who is a Slack user (`users:`, `teams:`, email look-ups); both renders use it, so a new mapping shows as an edit. */
  people?: People
  /** Whether messages carry the "Start review" button (no button when absent). */
  render?: RenderOptions
}

const renderFor = (lifecycle: StoredLifecycle, mentions: readonly string[], people: People | undefined, options: RenderOptions) =>
  renderMessage({ lifecycle, mentions, options, ...(people ? { people } : {}) })

/** A channel without a message of the pull request yet. */
export const unposted = (target: MessageTarget): ShownMessage => ({ channel: target.channel, mentions: target.mentions, ts: undefined, shown: undefined, reactions: [] })

/**
 * The calls that bring one message from what it shows to `next`. Pure and state-based: a message is
 * updated only when its render would change (chat.update is rate-limited, and many deliveries change
 * nothing a reader sees), and reactions follow the difference between the emoji the message carries and
 * the emoji `next` calls for, so a renamed emoji is swapped. A new message is posted, then gets its emoji.
 */
export function planMessage(
  message: ShownMessage, next: StoredLifecycle, reactions: ReactionSettings, people?: People, render: RenderOptions = NO_BUTTON,
): MessagePlan {
  const wanted = renderFor(next, message.mentions, people, render)
  const emoji = reactionNames(reactions, next.context.reactions)
  const changes: SlackChange[] = []
  if (message.ts === undefined || message.shown === undefined) changes.push({ type: 'post', message: wanted })
  else if (JSON.stringify(renderFor(message.shown, message.mentions, people, render)) !== JSON.stringify(wanted)) changes.push({ type: 'update', message: wanted })
  const carried = message.ts === undefined ? [] : message.reactions
  for (const name of emoji) if (!carried.includes(name)) changes.push({ type: 'addReaction', name })
  for (const name of carried) if (!emoji.includes(name)) changes.push({ type: 'removeReaction', name })
  return { channel: message.channel, mentions: message.mentions, ts: message.ts, changes, reactions: emoji }
}

/**
 * Every stored message of the pull request brought to `next`, then the new announcements. A plan may have
 * no changes: its row is still saved, so that it records the deliveries it now reflects.
 */
export function planChanges(input: PlanInput): MessagePlan[] {
  return [...input.messages, ...input.announceIn.map(unposted)].map((m) => planMessage(m, input.next, input.reactions, input.people, input.render))
}
