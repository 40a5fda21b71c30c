import type { FoldStep } from '../../machines/fold-events.ts'
import { referenceOf } from '../../machines/pull-request-event.ts'
import { pullRequestLink } from '../slack/render-direct-message.ts'
import { escapeText } from '../slack/render-message.ts'

/** One alert per pull request, ever: a replay, or a second merged delivery, finds its record. */
export const MERGE_ALERT_KEY = 'merged-without-approval'

/** The alert: its key (one per pull request) and its one line of Slack mrkdwn. */
export interface MergeAlert {
  replyKey: string
  text: string
}

/**
 * `notify.merged_without_approval`: the line for a pull request a batch merged with no approval from anyone but
 * its author, or with changes still requested, naming who merged it (GitHub's admin merges, GitLab's "merge
 * immediately" and Bitbucket's merges all arrive as the merge they are). Read from the lifecycle before the
 * merge, so only a pull request prherald followed is judged: one it never saw has no reviews it could know of.
 * `inChannel`: the line goes to another channel than the message's, so it links the pull request. Pure.
 */
export function mergeAlert(steps: readonly FoldStep[], inChannel: boolean): MergeAlert | undefined {
  for (const step of steps) {
    if (step.event.kind !== 'merged' || step.ignored || (step.before?.state !== 'open' && step.before?.state !== 'draft')) continue
    const context = step.before.context
    const author = context.author.toLowerCase()
    const approvers = context.approvedBy.filter((login) => login.toLowerCase() !== author)
    const blockers = context.changesRequestedBy
    if (approvers.length > 0 && blockers.length === 0) return undefined
    const what = inChannel ? pullRequestLink(context) : referenceOf(context)
    const how = blockers.length > 0 ? `with changes still requested by ${blockers.map(escapeText).join(', ')}` : 'without an approval'
    return { replyKey: MERGE_ALERT_KEY, text: `:warning: ${what} was merged by ${escapeText(step.event.actor.login)} ${how}` }
  }
  return undefined
}
