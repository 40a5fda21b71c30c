import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import { configurePeople } from '../people/configure-people.ts'
import { configureTargets } from '../routing/configure-targets.ts'
import { hostMappings } from '../routing/resolve-route.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { ChooseTargets } from '../routing/message-targets.ts'
import { createFindPost } from '../slack/find-post.ts'
import { createPostOnce } from '../slack/post-once.ts'
import { createReplyOnce } from '../slack/reply-once.ts'
import { DEFAULT_RETRY, type RetryPolicy } from '../slack/retry-transient.ts'
import { DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-client.ts'
import type { Store } from '../store/store.ts'
import { createApplyDeliveries, type ApplyDeliveries } from './apply-deliveries.ts'
import { createApplyPending } from './apply-pending.ts'
import { createOutbound, type Outbound, type OutboundOptions } from './create-outbound.ts'
import { recoverPosts, settleIntentsOf } from './recover-posts.ts'
import { createRepaint } from './repaint-after-loss.ts'
import { createThreadReplies } from './thread-replies.ts'
import { createPersonal, type Personal } from '../personal/create-personal.ts'

export interface WorkerOptions extends Omit<OutboundOptions, 'settings' | 'secrets'> {
  settings: Settings
  /** SLACK_SIGNING_SECRET set: messages carry the Start review button. */
  secrets: Pick<Secrets, 'slackBotToken' | 'slackSigningSecret'>
  /** Every configured host and its API client (src/config/connect-hosts.ts). */
  hosts: HostSet
  store: Store
  /** Retries across calls; tests shorten them. */
  retry?: RetryPolicy
  /** Where a pull request is first announced; by default the repository's channels, or its path rules. */
  chooseTargets?: ChooseTargets
  /** The personal side's clock (quiet hours, claims); tests move it. */
  now?: () => number
  /** Told when direct messages were queued (the server's sender then looks at once). */
  onDirectMessagesQueued?: () => void
}

export interface Worker extends Outbound {
  /** Folds a pull request's batch, plans, runs the plan through the pacer and commits: the caller keeps batches of a pull request in order. */
  applyDeliveries: ApplyDeliveries
  /** Under the pull request's lock, applies what is pending for it (the mailboxes' work); resolves to the ids applied. */
  applyPending: (prKey: string, known?: readonly LifecycleEvent[]) => Promise<string[]>
  /** Settles the posts an earlier run left with an unknown outcome (at start-up, before the replay). */
  recoverPosts: () => Promise<void>
  /** The personal side: direct messages, people's zones and groups (src/personal/). */
  personal: Personal
}

/**
 * The per-pull-request worker, built once for whoever changes a pull request's messages: the server's
 * mailboxes and a prherald-reconcile that runs while no server does. Both then render with the same button,
 * people and targets, and post and reply at most once.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { settings, secrets, store, logger } = options
  const outbound = createOutbound(options)
  const { slack, pacer, sleep, limit } = outbound
  const retry = options.retry ?? DEFAULT_RETRY
  const settleMs = options.slackTimeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS
  const findPost = createFindPost({ slack, logger })
  const postOnce = createPostOnce({ store, slack, logger, retry, sleep, findPost, settleMs })
  const replyOnce = createReplyOnce({ store, slack, logger, retry, sleep, settleMs })
  const people = configurePeople(settings, options.hosts, { store, slack, pacer, limit, logger })
  const personal = createPersonal({ ...options, slack, pacer, sleep, people, settleMs })
  const render = { reviewButton: secrets.slackSigningSecret !== undefined }
  const applyDeliveries = createApplyDeliveries({
    store, slack, logger, mappings: hostMappings(settings.hosts), reactions: settings.reactions, retry, sleep, pacer,
    chooseTargets: options.chooseTargets ?? configureTargets(options.hosts, logger), limit, postOnce,
    threadUpdates: settings.threadUpdates, notifyReviewRequests: settings.notifyReviewRequests, postThreadReplies: createThreadReplies({ replyOnce, pacer, retry, sleep, logger }),
    render,
    people,
    settleIntents: (ref) => settleIntentsOf(ref, { store, findPost, pacer, logger }),
    ...(personal.queue ? { directMessages: personal.queue } : {}),
  })
  return {
    ...outbound,
    applyDeliveries,
    applyPending: createApplyPending({
      store, applyDeliveries, repaint: createRepaint({ store, slack, logger, retry, sleep, pacer, postOnce, render, people }),
    }),
    recoverPosts: () => recoverPosts({ store, findPost, pacer, logger, sleep, settleMs }),
    personal,
  }
}
