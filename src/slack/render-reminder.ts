import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import type { HoldRole } from '../store/reminder-store.ts'
import { pullRequestLink } from './render-direct-message.ts'
import { escapeText } from './render-message.ts'

/** A reminder's line in a direct message: `acme/api#42 Title has waited 1 working day for your review`. Pure. */
export function renderReminderLine(context: PullRequestContext, role: HoldRole, why: string, waited: string): string {
  const link = pullRequestLink(context)
  return role === 'review'
    ? `:hourglass_flowing_sand: ${link} has waited ${waited} for your review`
    : `:hourglass_flowing_sand: ${link} has waited ${waited} for you: ${escapeText(why)}`
}

/**
 * The thread's one line once a pull request has waited `escalate_after` on someone: it names them with a `<@U…>`
 * mention, the token the review ping already puts in the thread (render-review-ping.ts). `slackUser` is a `users:`
 * id, checked at load (U…/W…). Pure.
 */
export function renderEscalationLine(slackUser: string, role: HoldRole, why: string, waited: string): string {
  return role === 'review'
    ? `:hourglass_flowing_sand: This pull request has waited ${waited} for a review by <@${slackUser}>.`
    : `:hourglass_flowing_sand: This pull request has waited ${waited} on its author <@${slackUser}>: ${escapeText(why)}.`
}
