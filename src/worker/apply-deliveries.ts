import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionSettings, ReviewRequestNotify } from '../config/settings.ts'
import { applyReactionTier, reactionNames } from '../config/reactions.ts'
import { isReviewClick, isSlackReply, type LifecycleEvent, type MachineEvent, type SlackReply } from '../../machines/lifecycle-event.ts'
import type { RenderOptions } from '../slack/render-review.ts'
import { ignoredFacts, logIgnored } from '../intake/log-ignored.ts'
import { filteredInBatch, heldBack } from '../intake/filter-intake.ts'
import { resolveHostRoute, type HostMappings } from '../routing/resolve-route.ts'
import { lockLostError } from '../slack/slack-pacer.ts'
import { hasMessage, NO_MESSAGE, type DirectMessageIntent, type MessageRecord, type PullRequestRef } from '../store/store.ts'
import type { CallLimit } from './call-limit.ts'
import { storedPullRequest, type EventKind, type Provider, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import { routePullRequest, type FollowRoute, type RouteDecision, type RoutingFacts } from '../routing/route-pull-request.ts'
import type { MessageTarget } from '../routing/message-targets.ts'
import type { GatherRouteFacts } from './gather-route-facts.ts'
import { planChanges } from './plan-changes.ts'
import { createPlanRunner, type PlanRunnerDeps } from './run-plan.ts'
import { yieldToAcks, type BatchContext } from './run-batch.ts'
import { plannedReviewPings, plannedThreadUpdates, type PostThreadReplies } from './thread-replies.ts'
import { mappedId } from '../config/people-map.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import type { QueueDirectMessages } from '../personal/queue-direct-messages.ts'
import { foldTurnaround } from '../insights/fold-turnaround.ts'
import { entryOf } from '../insights/entry-of.ts'
import { mergeAlert } from '../insights/merge-alert.ts'
import type { TurnaroundRecord, TurnaroundStore } from '../store/turnaround-store.ts'
import { layTalkBack, type TalkBackSettings } from '../config/talk-back-settings.ts'
import type { MirrorComments } from './mirror-comments.ts'
import type { AssignReviewers } from '../assign/assign-reviewers.ts'

/**
 * The lifecycle machine (XState) is loaded by the first batch, not at start: a server that has had no
 * delivery yet needs none of it, and start memory is a target (docs/performance.md, "Start memory").
 */
let machine: Promise<typeof import('../../machines/fold-events.ts') & typeof import('../../machines/pull-request.machine.ts')> | undefined
const loadMachine = () => (machine ??= Promise.all([import('../../machines/fold-events.ts'), import('../../machines/pull-request.machine.ts')])
  .then(([fold, lifecycle]) => ({ ...fold, ...lifecycle })))

export interface LifecycleDeps extends PlanRunnerDeps {
  /** Every host's mappings: a pull request is routed by its own host's. */
  mappings: HostMappings
  /** The global `slack.reactions`; a mapping tier may override them. */
  reactions: ReactionSettings
  /** Every host's `follow` entries: a followed person's pull requests go there too, mapped repository or not. */
  follow: ReadonlyMap<Provider, readonly FollowRoute[]>
  /** Reads the facts the routing decision needs beyond the delivery (changed files, CODEOWNERS, team members). */
  routeFacts: GatherRouteFacts
  /** Git-host calls (path routing's changed files): at most so many at once. Slack calls go through the pacer. */
  limit: CallLimit
  /** The global `slack.thread_updates`; a mapping tier may override it. */
  threadUpdates: boolean
  /** Posts replies in the messages' threads, each at most once (thread-replies.ts). */
  postThreadReplies: PostThreadReplies
  /** `notify.review_requests`: `thread` pings newly requested, mapped reviewers there. */
  notifyReviewRequests: ReviewRequestNotify
  /** Whether messages carry the "Start review" button (SLACK_SIGNING_SECRET is set). */
  render?: RenderOptions
  /** Who is a Slack user for a lifecycle about to be rendered; without it everyone is plain text. */
  people?: ResolvePeople
  /** The batch's direct messages as intents its commit holds (docs/notifications.md); absent when they are off. */
  directMessages?: QueueDirectMessages
  /** Told once a commit held direct messages: the sender resolves and sends them. */
  onDirectMessages?: () => void
  /** Settles the pull request's posts of unknown outcome; true when a message was adopted (recover-intents.ts). */
  settleIntents?: (ref: PullRequestRef, lost: AbortSignal) => Promise<boolean>
  /** Thread replies that become comments (reply-comments.ts), before the batch's fold; absent: they are only marked applied. */
  replyComments?: (replies: readonly SlackReply[], batch: BatchContext) => Promise<void>
  /** `insights.enabled`: each batch folds its deliveries into the pull request's turnaround row; absent, nothing is read or written. */
  turnaround?: { store: TurnaroundStore; now: () => number }
  /** `notify.merged_without_approval`: `thread` or a channel ID; absent: off. */
  mergedWithoutApproval?: string | undefined
  /**
   * `slack.talk_back.mirror` (mirror-comments.ts): the global `slack.talk_back` a mapping tier may override, and
   * whether replies can go back to code threads (talk-back is on). Absent: nothing is mirrored.
   */
  mirror?: { comments: MirrorComments; talkBack: TalkBackSettings; replies: boolean }
  /** `assign:` (src/assign/): asks reviewers of a team once per pull request; absent: nobody is assigned. */
  assignReviewers?: AssignReviewers
}

/**
 * What counts as a pull request's activity for the digest, beside its announcement: a review and a comment.
 * A push, an edit or a label does not: none of them tells that someone looked at it. Bots' reviews muted by
 * reviews.ignore_bot_reviews never get here (the intake drops them), and a "Start review" click is a promise
 * of a review, not one: the pull request stays stuck until the review arrives.
 */
const ACTIVITY_KINDS: ReadonlySet<EventKind | 'review_click'> = new Set(['approved', 'changes_requested', 'commented'])

/**
 * The mailbox worker: takes one pull request's queued deliveries (one or more, in arrival order), folds
 * them through the lifecycle machine, plans the Slack calls that bring every message to the final state,
 * runs them, and commits the rows together with the deliveries they reflect. Runs inside the PR's
 * batch (run-batch.ts), so it never races another delivery of the same pull request.
 */
export function createApplyDeliveries(deps: LifecycleDeps) {
  const runPlan = createPlanRunner(deps)

  return async function applyDeliveries(all: readonly LifecycleEvent[], batch: BatchContext): Promise<void> {
    // Thread replies go to their comments first; they are marked applied with the batch's commit.
    const slackReplies = all.filter(isSlackReply)
    if (slackReplies.length > 0) await deps.replyComments?.(slackReplies, batch)
    const hostEvents = all.filter((e) => !isSlackReply(e) && !isReviewClick(e)) as PullRequestEvent[]
    // An edit or a deletion of a comment is the mirror's alone: the machine never sees it.
    const events = all.filter((e): e is MachineEvent => !isSlackReply(e) && e.kind !== 'comment_changed')
    const first = events[0] ?? hostEvents[0] ?? slackReplies[0]
    const last = events.at(-1)
    if (!first) return
    const ref = storedPullRequest(first)
    const deliveryIds = all.map((e) => e.deliveryId)
    const facts = { repository: ref.repository, pr: first.number, delivery_id: all.at(-1)!.deliveryId, deliveries: all.length }
    // Activity is recorded even when the message does not change (a second comment adds no reaction).
    const reviewed = events.some((e) => ACTIVITY_KINDS.has(e.kind))
    const route = resolveHostRoute(deps.mappings, first.provider, first.owner, first.repo)
    const mirror = async (into: ReadonlyArray<{ channel: string; ts: string }>) => {
      if (!deps.mirror || !route || !hostEvents.some((e) => e.comment)) return
      const talkBack = layTalkBack(deps.mirror.talkBack, ...route.talkBack)
      const url = hostEvents.at(-1)!.pr.url
      await deps.mirror.comments(hostEvents, into, { ref, facts, lost: batch.lost, setting: talkBack.mirror, url, replies: deps.mirror.replies && talkBack.threadReplies !== 'off' })
    }
    let directMessages: DirectMessageIntent[] = []
    let turnaround: TurnaroundRecord | undefined
    // The threads the batch's comments are mirrored into: the messages before it, or the ones it leaves.
    let threads: ReadonlyArray<{ channel: string; ts: string }> = []
    const commit = async (messages: MessageRecord[], announced = false) => {
      // Before the commit, like thread replies: a replay finds each reply's record and posts none twice.
      await mirror(messages.some(hasMessage) ? messages.filter(hasMessage) : threads)
      // A batch whose lock is gone must not save its state: another replica may have saved a later one.
      await yieldToAcks()
      if (batch.lost.aborted) throw lockLostError(batch.lost)
      await deps.store.commitOutcome({ provider: first.provider, deliveryIds, messages, directMessages, ...(reviewed || announced ? { activity: ref } : {}), ...(turnaround ? { turnaround } : {}) })
      if (directMessages.length > 0) deps.onDirectMessages?.()
    }

    if (!last && !hostEvents.some((e) => e.comment)) return commit([])
    const allRows = await deps.store.findMessages(ref)
    // Rows, deliveries marked applied and the deliveries they reflect are committed together, so a pending
    // delivery is normally reflected by no row. A database written by an older version may still hold a row
    // that reflects one (its commit was cut off between channels): that row is left as it is.
    const ids = new Set(deliveryIds)
    const rows = allRows.filter((r) => r.lastDeliveryId === null || !ids.has(r.lastDeliveryId))
    if (allRows.length > 0 && rows.length === 0) return commit([])
    // A row without a message (NO_MESSAGE) is only the record of an end before the announcement; once the pull
    // request has a message, that message's row holds its lifecycle.
    const messages = rows.filter(hasMessage)
    threads = messages
    if (!last) return commit([])
    const current = messages[0] ?? rows[0]
    const stored = current?.lifecycle

    const follow = deps.follow.get(first.provider) ?? []
    const routed = route !== undefined || follow.length > 0
    // The one routing decision, with what the batch knows without asking the host (the announcement adds the rest).
    const decide = (event: PullRequestEvent, more: Partial<RoutingFacts> = {}): RouteDecision =>
      routePullRequest({ route, follow }, { ...event, teamMembers: deps.routeFacts.knownMembers(event.provider, event.owner), ...more })
    // Deliveries the intake left to the batch (one of the pull request's was in flight): decided here.
    const filtered = routed ? filteredInBatch(deps.logger, (e) => heldBack(decide(e)), events, messages.length > 0) : undefined
    const folding = filtered?.size ? events.filter((e) => !filtered.has(e.deliveryId)) : events
    if (folding.length === 0) return commit([])
    // Only for a routed pull request: one no mapping entry names is nobody's figure.
    if (deps.turnaround && route) {
      const deliveries = folding.filter((e) => !isReviewClick(e))
      turnaround = foldTurnaround(ref, await deps.turnaround.store.turnaroundOf(ref), deliveries, entryOf(route), deps.turnaround.now())
    }
    const { foldEvents, initialContext } = await loadMachine()
    await yieldToAcks()
    const folded = foldEvents(stored, folding, { messageShown: messages.length > 0 })
    for (const step of folded.steps) if (step.ignored) logIgnored(deps.logger, step.ignored, ignoredFacts(step.event))
    const next = folded.next
    if (!folded.changed && next?.state === 'ended') {
      // A post of unknown outcome may be in the channel after all: adopted, the batch runs again and ends it.
      if (messages.length === 0 && deps.settleIntents && await deps.settleIntents(ref, batch.lost)) return applyDeliveries(all, batch)
      // Ended before it was announced: the state is kept in a row without a message, and Slack hears nothing.
      return commit([{ ...ref, ...NO_MESSAGE, mentions: [], reactions: [], state: next.state, lifecycle: next, lastDeliveryId: last.deliveryId }])
    }
    // Before the commit, like thread replies: a replay queues the same rows, which are kept once.
    if (folded.changed && next && deps.directMessages) directMessages = await deps.directMessages({ steps: folded.steps, next, facts })
    if (!folded.changed || !next) return commit([])
    const noMapping = () => {
      for (const step of folded.steps) if (!step.ignored) logIgnored(deps.logger, 'no_mapping', ignoredFacts(step.event))
      return commit([])
    }
    if (!routed) return noMapping()

    const taken = new Set(allRows.map((r) => r.channel))
    let announceIn: MessageTarget[]
    if (folded.announcedBy) {
      const announcedBy = folded.announcedBy
      const gathered = await deps.limit(() => deps.routeFacts.gather(announcedBy, route, follow))
      const decision = decide(announcedBy, gathered)
      deps.logger.debug('routing chose channels', { ...facts, channels: decision.targets.map((t) => `${t.channel} (${t.reasons.map((r) => r.rule).join(', ')})`) })
      if (decision.targets.length === 0 && messages.length === 0) return noMapping()
      announceIn = decision.targets.filter((t) => !taken.has(t.channel)).map(({ channel, mentions }) => ({ channel, mentions }))
    } else {
      // Announced already: its channels stay as they were chosen, and a team asked to review since then that
      // `owners:` lists adds its channel (a new message there, kept in step with the others from now on).
      const teams = events.flatMap((e) => (!isReviewClick(e) && e.kind === 'review_requested' && e.reviewer?.type === 'team' ? [e.reviewer.slug] : []))
      const latest = events.findLast((e): e is PullRequestEvent => !isReviewClick(e))
      announceIn = !latest ? [] : decide(latest, { requestedTeams: teams }).targets
        .filter((t) => !taken.has(t.channel) && t.reasons.some((r) => r.kind === 'requested_team'))
        .map(({ channel, mentions }) => ({ channel, mentions }))
    }
    await yieldToAcks()
    const reactions = applyReactionTier(deps.reactions, route?.reactions)
    const people = deps.people ? await deps.people(next, facts) : undefined
    const plans = planChanges({
      messages: messages.map((r) => {
        // A row written before messages recorded their emoji: assume the names configured now.
        return { channel: r.channel, mentions: r.mentions, ts: r.ts, shown: r.lifecycle, reactions: r.reactions ?? reactionNames(reactions, r.lifecycle.context.reactions) }
      }),
      announceIn,
      next,
      reactions,
      render: deps.render,
      ...(people ? { people } : {}),
    })
    // Nothing stored and something changed: a delivery announced the pull request (a click never does).
    const unannounced: StoredLifecycle = stored ?? { state: 'unannounced', context: initialContext(folded.announcedBy!) }
    const beforePost = { state: unannounced.state, lifecycle: unannounced, lastDeliveryId: current?.lastDeliveryId ?? null }
    const context = { ref, facts, next, reactions, render: deps.render, beforePost, deliveryId: last.deliveryId, ...(people ? { people } : {}) }

    const placed = []
    let announced = false
    for (const plan of plans) {
      const message = await runPlan(plan, context, batch)
      if (message) placed.push(message)
      if (message && plan.changes.some((c) => c.type === 'post')) announced = true
    }
    // Before the commit: a crash between them replays the batch, and each reply's record keeps it single.
    const slackUser = (key: string) => (people ? mappedId(people.users, key) : undefined)
    const replies = [
      ...plannedThreadUpdates({ enabled: route?.threadUpdates ?? deps.threadUpdates, stored, steps: folded.steps, slackUser }),
      ...plannedReviewPings({ enabled: deps.notifyReviewRequests === 'thread', stored, steps: folded.steps, context: next.context, people }),
    ]
    const assign = route?.assign
    const latest = hostEvents.at(-1)
    if (assign && deps.assignReviewers && latest && next.state === 'open') {
      // Announced ready, made ready since, or the team asked to review in this batch.
      const teamAsked = hostEvents.some((e) => e.kind === 'review_requested' && e.reviewer?.type === 'team' && e.reviewer.slug.toLowerCase() === assign.team.toLowerCase())
      const trigger = announced || stored?.state === 'draft' || teamAsked
      const line = await deps.assignReviewers({ ref, event: latest, assign, context: next.context, trigger, facts })
      if (line) replies.push(line)
    }
    const alertIn = deps.mergedWithoutApproval
    const alert = alertIn ? mergeAlert(folded.steps, alertIn !== 'thread') : undefined
    if (alert && alertIn === 'thread') replies.push(alert)
    await deps.postThreadReplies(placed, replies, { ref, facts, lost: batch.lost })
    if (alert && alertIn && alertIn !== 'thread') await deps.postThreadReplies([{ channel: alertIn }], [alert], { ref, facts, lost: batch.lost })
    // Saved even when Slack refused a channel's change for good: the lifecycle belongs to the pull request,
    // and a row left behind would later hand an old state to the machine.
    await commit(placed.map((m) => ({
      ...ref, ...m, state: next.state, lifecycle: next, lastDeliveryId: last.deliveryId,
    })), announced)
  }
}

export type ApplyDeliveries = ReturnType<typeof createApplyDeliveries>
