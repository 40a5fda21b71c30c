import { isCheckDelivery, isIgnored, pullRequestKey, storedPullRequest, type Actor, type Delivery, type IgnoreReason, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Mappings } from '../config/schema.ts'
import type { ReviewSettings } from '../config/settings.ts'
import { layTalkBack, type TalkBackSettings } from '../config/talk-back-settings.ts'
import type { GitHost } from '../hosts/contract.ts'
import { classifyDependencyBump } from '../../machines/dependency-bump.ts'
import type { Logger } from '../log/logger.ts'
import { resolveRoute } from '../routing/resolve-route.ts'
import { isMutedBotReview } from './bot-review.ts'
import { createCheckIntake } from './check-intake.ts'
import { duplicateReason } from './duplicate-reason.ts'
import type { DeliveryBody, DeliveryStore, MessageStore, SharedWork } from '../store/store.ts'
import { ignoredFacts, logIgnored } from './log-ignored.ts'
import { heldBack, isFiltered } from './filter-intake.ts'
import { routePullRequest, type FollowRoute } from '../routing/route-pull-request.ts'

export type IntakeResult = { status: 'accepted' } | { status: 'ignored'; reason: IgnoreReason }

/** The hand-off to the lifecycle: called once per newly recorded delivery, after it is durable. */
export type HandOff = (event: PullRequestEvent) => void

export interface IntakeDeps {
  /** The host this intake serves (its route, its mappings). */
  host: GitHost
  mappings: Mappings
  /** The host's `follow` entries: a pull request of a followed person goes there, mapped repository or not. */
  follow?: readonly FollowRoute[]
  /** `reviews`: muted bot reviews are dropped here, and dependency-bot pull requests are marked here. */
  reviews: ReviewSettings
  store: DeliveryStore & MessageStore & Pick<SharedWork, 'soleServer' | 'pendingDeliveriesOf'>
  logger: Logger
  handOff: HandOff
  /**
   * `users:`: the Slack user a git-host person maps to. Kept on the event's actor, so that a review ends that
   * person's "Start review" claim only (machines/review-claims.ts).
   */
  slackUserOf?: (actor: Actor) => string | undefined
  /** Whether a batch of this pull request is pending or running: its filter is then decided in the batch. */
  busy?: (prKey: string) => boolean
  /** The global `slack.talk_back`: where its `mirror` is off, a comment's text is not kept with its delivery. */
  talkBack?: TalkBackSettings
}

/**
 * Decides what happens to a verified, decoded delivery: ignore it (with the log line), or record it
 * durably and hand it to the lifecycle. The caller answers 200 only after this resolves, so an
 * acknowledged delivery is always in the store.
 */
export function createIntake(deps: IntakeDeps) {
  const ignore = (reason: IgnoreReason): IntakeResult => ({ status: 'ignored', reason })
  const acceptCheck = createCheckIntake(deps)

  /** `body`: the raw body's digest, so that the same body under a new delivery id is refused as a replay. */
  return async function accept(decoded: Delivery, deliveryId: string, body?: DeliveryBody): Promise<IntakeResult> {
    if (isCheckDelivery(decoded)) return acceptCheck(decoded, body)
    if (isIgnored(decoded)) {
      logIgnored(deps.logger, decoded.reason, { ...decoded, provider: deps.host.id, deliveryId })
      return ignore(decoded.reason)
    }
    const route = resolveRoute(deps.mappings, decoded.owner, decoded.repo)
    // Without its changed files: whether any rule may send it somewhere, not yet where (the batch decides that).
    const decision = route === undefined && !deps.follow?.length ? undefined : routePullRequest({ route, follow: deps.follow ?? [] }, decoded)
    if (!decision || (!route && decision.targets.length === 0 && !decision.undecided)) {
      logIgnored(deps.logger, 'no_mapping', ignoredFacts(decoded))
      return ignore('no_mapping')
    }
    if (await isFiltered(deps, heldBack(decision), decoded)) return ignore('filtered')
    // A comment's text is kept only for `slack.talk_back.mirror`; its edits and deletions are read by nothing else.
    const mirrored = deps.talkBack !== undefined && layTalkBack(deps.talkBack, ...(route?.talkBack ?? [])).mirror !== 'off'
    if (decoded.kind === 'comment_changed' && !mirrored) {
      logIgnored(deps.logger, 'unsupported_action', ignoredFacts(decoded))
      return ignore('unsupported_action')
    }
    // Muted before it is recorded: the delivery then leaves no trace in the store, so nothing that reads the
    // store (the lifecycle, a digest's "last activity") can count it.
    if (isMutedBotReview(decoded, deps.reviews.ignoreBotReviews)) {
      logIgnored(deps.logger, 'bot_review', ignoredFacts(decoded))
      return ignore('bot_review')
    }
    const dependencyBump = classifyDependencyBump(decoded, deps.reviews, deps.host.dependencyBots)
    const slackUser = deps.slackUserOf?.(decoded.actor)
    const { comment, ...bare } = decoded
    const kept: PullRequestEvent = comment && mirrored ? decoded : bare
    const mapped: PullRequestEvent = slackUser === undefined ? kept : { ...kept, actor: { ...kept.actor, slackUser } }
    const event: PullRequestEvent = dependencyBump ? { ...mapped, dependencyBump } : mapped
    // The head is committed with the delivery, before it is acknowledged: a check result for this commit may
    // follow at once (checks on the message). One commit, not two, before the 200.
    const head = event.head ? { pr: storedPullRequest(event), sha: event.head } : undefined
    const recorded = await deps.store.recordDelivery({
      provider: event.provider,
      deliveryId: event.deliveryId,
      prKey: pullRequestKey(event),
      event,
      ...(body ? { body } : {}),
    }, head)
    if (!recorded) {
      const { reason, firstDeliveryId } = await duplicateReason(deps.store, event.provider, body)
      logIgnored(deps.logger, reason, { ...ignoredFacts(decoded), firstDeliveryId })
      return ignore(reason)
    }
    deps.handOff(event)
    return { status: 'accepted' }
  }
}

export type Intake = ReturnType<typeof createIntake>
