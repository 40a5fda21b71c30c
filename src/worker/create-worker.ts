import type { Secrets, Settings } from '../config/settings.ts'
import { configurePeople } from '../people/configure-people.ts'
import { createRouteFacts } from './gather-route-facts.ts'
import { followRoutes } from '../routing/route-pull-request.ts'
import { hostMappings, listHostRoutes } from '../routing/resolve-route.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { createOutbox, type Outbox } from '../slack/outbox.ts'
import { DEFAULT_RETRY, type RetryPolicy } from '../slack/retry-transient.ts'
import { DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-api.ts'
import type { DeliveryStore, DirectMessageStore, IntentStore, MessageStore, PeopleCache, PreferenceStore, SharedWork } from '../store/store.ts'
import { createApplyDeliveries, type ApplyDeliveries } from './apply-deliveries.ts'
import { createBatchRunner, type BatchRunner, type BatchRunnerDeps } from './run-batch.ts'
import { createOutbound, type Outbound, type OutboundOptions } from './create-outbound.ts'
import { pullRequestIntents, recoverIntents, settleIntentsOf } from './recover-intents.ts'
import { createRepaint } from './repaint-after-loss.ts'
import { createThreadReplies } from './thread-replies.ts'
import { createPersonal, type Personal } from '../personal/create-personal.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'
import type { RenderOptions } from '../slack/render-review.ts'
import type { ReplyCommentStore } from '../store/reply-comment-store.ts'
import type { Provider, PullRequestId } from '../../machines/pull-request-event.ts'
import { leftComments } from './left-comments.ts'
import { createReplyComments } from './reply-comments.ts'
import type { TurnaroundStore } from '../store/turnaround-store.ts'
import type { WeeklyPostStore } from '../store/weekly-post-store.ts'
import { createMirrorComments } from './mirror-comments.ts'
import type { AssignmentStore } from '../store/assignment-store.ts'
import { createAssignReviewers, type AssignReviewers } from '../assign/assign-reviewers.ts'
import { createAwayCheck } from '../assign/away-check.ts'

export interface WorkerOptions extends Omit<OutboundOptions, 'settings' | 'secrets'> {
  settings: Settings
  /** SLACK_SIGNING_SECRET set: messages carry the Start review button. */
  secrets: Pick<Secrets, 'slackBotToken' | 'slackSigningSecret'>
  /** Every configured host and its API client (src/config/connect-hosts.ts). */
  hosts: HostSet
  store: MessageStore & IntentStore & SharedWork & DeliveryStore & PeopleCache & DirectMessageStore & PreferenceStore & ReplyCommentStore & TurnaroundStore & AssignmentStore
    & WeeklyPostStore
  /** Retries across calls; tests shorten them. */
  retry?: RetryPolicy
  /** The personal side's clock (quiet hours, claims); tests move it. */
  now?: () => number
  /** Told when direct messages were queued (the server's sender then looks at once). */
  onDirectMessagesQueued?: () => void
  /** Talk-back (docs/talk-back.md), when `slack.talk_back` turns anything on: thread replies become comments. */
  talkBack?: TalkBackService | undefined
}

export interface Worker extends Outbound {
  /** Folds a pull request's batch, plans, runs the plan through the pacer and commits: the caller keeps batches of a pull request in order. */
  applyDeliveries: ApplyDeliveries
  /** The one batch runner (run-batch.ts); the server adds its retries and leases, a local reconcile runs without. */
  batches: (server?: Pick<BatchRunnerDeps, 'retries' | 'release'>) => BatchRunner
  /** Settles the writes of every kind an earlier run left with an unknown outcome (at start-up, before the replay). */
  recoverIntents: () => Promise<void>
  /** The personal side: direct messages, people's zones and groups (src/personal/). */
  personal: Personal
  /** The one outbox every Slack write that creates something goes through (the digest's included). */
  outbox: Outbox
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
  const outbox = createOutbox({ store, slack, logger, retry, sleep, settleMs })
  const people = configurePeople(settings, options.hosts, { store, slack, pacer, limit, logger })
  const personal = createPersonal({ ...options, slack, pacer, people, outbox })
  // The Start review button is offered wherever its click can arrive: over HTTP (signing secret) or Socket Mode.
  const talkBack = options.talkBack
  const render: RenderOptions = {
    reviewButton: secrets.slackSigningSecret !== undefined || settings.socketMode,
    ...(talkBack ? {
      repliesGo: (provider: Provider, repository: string) => talkBack.settingsFor(provider, repository).threadReplies !== 'off',
      reviewActions: (pr: PullRequestId) => {
        const own = talkBack.settingsFor(pr.provider, `${pr.owner}/${pr.repo}`)
        return own.reviews ? own.reviewActions : undefined
      },
    } : {}),
  }
  // Only where some mapping entry has `assign:`: without one, a batch reads nothing more.
  const assignReviewers: AssignReviewers | undefined = listHostRoutes(hostMappings(settings.hosts)).some((r) => r.assign)
    ? createAssignReviewers({
      hosts: options.hosts, store, logger, now: options.now ?? Date.now, groupMembers: (group) => personal.people.groupMembers(group),
      away: createAwayCheck({ slack, pacer, store, logger, now: options.now ?? Date.now }),
    })
    : undefined
  const replyComments = talkBack ? createReplyComments({ store, outbox, talkBack, hosts: options.hosts, slack, pacer, logger }) : undefined
  const applyDeliveries = createApplyDeliveries({
    store, slack, logger, mappings: hostMappings(settings.hosts), reactions: settings.reactions, retry, sleep, pacer,
    follow: new Map(settings.hosts.map((h) => [h.id, followRoutes(h.follow)])), routeFacts: createRouteFacts({ hosts: options.hosts, logger }), limit, outbox,
    threadUpdates: settings.threadUpdates, notifyReviewRequests: settings.notifyReviewRequests, postThreadReplies: createThreadReplies({ outbox, pacer, retry, sleep, logger }),
    render,
    people,
    settleIntents: (ref, lost) => settleIntentsOf(ref, lost, { store, pacer, outbox }),
    ...(personal.queue ? { directMessages: personal.queue, onDirectMessages: options.onDirectMessagesQueued } : {}),
    ...(replyComments ? { replyComments } : {}),
    ...(settings.insights.enabled ? { turnaround: { store, now: options.now ?? Date.now } } : {}),
    mergedWithoutApproval: settings.mergedWithoutApproval,
    ...(assignReviewers ? { assignReviewers } : {}),
    mirror: { comments: createMirrorComments({ outbox, store, slack, pacer, retry, sleep, logger, hosts: options.hosts }), talkBack: settings.talkBack, replies: talkBack !== undefined },
  })
  const repaint = createRepaint({ store, slack, logger, retry, sleep, pacer, outbox, render, people })
  return {
    ...outbound,
    outbox,
    applyDeliveries,
    batches: (server) => createBatchRunner({ store, apply: applyDeliveries, repaint, ...server }),
    recoverIntents: () => recoverIntents({
      sources: [
        ...pullRequestIntents({ store, pacer, outbox }), personal.leftDirectMessages,
        ...(talkBack ? [leftComments({ store, talkBack, hosts: options.hosts })] : []),
      ], logger, sleep, settleMs,
    }),
    personal,
  }
}
