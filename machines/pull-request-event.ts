/** The provider-neutral shape every accepted delivery is decoded into. Decoders are pure. */
import type { DependencyBump } from './dependency-bump.ts'

/** A git host's id (src/hosts/registry.ts): the core never asks which one, it only carries it. */
export type Provider = string

export type EventKind =
  | 'opened' // a new pull request (may be a draft)
  | 'reopened'
  | 'ready_for_review'
  | 'converted_to_draft'
  | 'updated' // Bitbucket pullrequest:updated: draft flag and title compared with the stored state
  | 'edited' // title or description edited (GitHub)
  | 'approved'
  | 'changes_requested'
  | 'commented' // a review with state commented, a review comment, or a conversation comment
  | 'approval_removed' // Bitbucket pullrequest:unapproved
  | 'changes_request_removed' // Bitbucket pullrequest:changes_request_removed
  | 'review_dismissed' // GitHub pull_request_review dismissed
  | 'review_requested' // GitHub pull_request review_requested: `reviewer` names the user or team
  | 'review_request_removed' // GitHub pull_request review_request_removed: `reviewer` names the user or team
  | 'merged'
  | 'closed' // closed without merging, or declined on Bitbucket
  | 'synchronize' // GitHub: new commits pushed; the head commit moved (its checks start over)
  | 'check_completed' // GitHub: a check suite or a commit status for a commit; see check-delivery.ts
  | 'comment_changed' // a comment edited or deleted at the host: only `slack.talk_back.mirror` reads it, never the machine

/**
 * Someone asked to review. A user by the login the message shows (GitHub login, Bitbucket nickname or
 * display name) and, on Bitbucket, the account id `users:` is keyed by; a GitHub team by its slug (the key
 * of `teams:`) and its name.
 */
export type Reviewer =
  | { type: 'user'; login: string; accountId?: string }
  | { type: 'team'; slug: string; name: string }

export interface PullRequestFacts {
  title: string
  url: string
  /** The author's login; '' when the delivery does not name one (GitLab's hooks carry only the author's id). */
  author: string
  draft: boolean
  state: 'open' | 'closed' | 'merged'
  /** ISO-8601 creation time of the pull request. */
  createdAt: string
  /**
   * ISO-8601 time the pull request last changed, as the host saw it when it sent this delivery. Deliveries
   * arrive out of order; this is what tells a stale event from one that happened after an end.
   */
  updatedAt: string
  /**
   * True when the pull request carries a security-update marker (label, title, or an advisory id in the bots'
   * vulnerability section; see dependency-bump.ts). Only the verdict is kept: the body is never stored or
   * logged. Absent in deliveries recorded before this field existed, which read as routine.
   */
  securityUpdate?: boolean
  /**
   * Bitbucket only: the author's Atlassian account id, the key `users:` maps (GitHub's key is the login
   * itself). Absent on GitHub and in deliveries recorded before it existed.
   */
  authorAccountId?: string
  /**
   * The reviewers still asked to review when the host sent this delivery: the full list, not a change.
   * GitHub: `requested_reviewers` then `requested_teams`, on every pull_request and pull_request_review
   * payload (GitHub drops a reviewer from it once they review). Bitbucket: `reviewers`, less the
   * participants who approved or requested changes. Absent when the payload carries no list (issue_comment,
   * a payload without the field, deliveries recorded before it existed); an empty list means nobody.
   */
  requestedReviewers?: Reviewer[]
  /** The labels the host showed on the pull request (GitHub, GitLab), for `ignore.labels`; absent: none, or a host without labels. */
  labels?: string[]
  /** The delivery cannot say which labels the pull request has (GitLab's Note Hook carries none). */
  labelsUnknown?: true
  /**
   * The branch the pull request would merge into (GitHub `base.ref`, GitLab `target_branch`, Bitbucket
   * `destination.branch.name`), for `only.into`/`ignore.into`. Absent where the delivery does not carry it
   * (GitHub's issue_comment) and in deliveries recorded before it existed.
   */
  into?: string
  /** The branch the pull request brings (GitHub `head.ref`, GitLab `source_branch`, Bitbucket `source.branch.name`). */
  from?: string
}

export interface Actor {
  /** What the message shows: the GitHub login, or the Bitbucket nickname (display name when there is none). */
  login: string
  isBot: boolean
  /** Bitbucket only: the Atlassian account id, the key `users:` maps. See PullRequestFacts.authorAccountId. */
  accountId?: string
  /** The Slack user `users:` maps the login to, set by the intake; undefined when unmapped. */
  slackUser?: string
}

/**
 * A comment a delivery carries, for `slack.talk_back.mirror` (docs/talk-back.md): the intake keeps it only
 * where mirroring is on, so a comment's text is stored with its delivery nowhere else.
 */
export interface HostComment {
  /** The host's id of the comment (of the review, for a review's body), as text. */
  id: string
  action: 'created' | 'edited' | 'deleted'
  /** `conversation`: the pull request's own discussion; `review`: a review's body; `code`: a comment on a line of the diff. */
  place: 'conversation' | 'review' | 'code'
  /** The host's Markdown; '' when the delivery carries none (a deletion may not). */
  body: string
  /** The comment's own page. */
  url?: string
  /** `code`: the file and the line (the new side's where the host gives both). */
  path?: string
  line?: number
  /**
   * `code`: what a reply in the same code thread names, opaque outside the host's folder (GitHub: the thread's
   * first comment; GitLab: the discussion; Bitbucket: the thread's first comment).
   */
  thread?: string
}

export interface PullRequestEvent {
  provider: Provider
  deliveryId: string
  owner: string
  repo: string
  number: number
  kind: EventKind
  pr: PullRequestFacts
  actor: Actor
  /**
   * Set by the intake when the pull request's author is a configured dependency bot; the machine keeps it in
   * the context from the announcement on.
   */
  dependencyBump?: DependencyBump
  /** review_requested / review_request_removed: who was asked, or is no longer asked, to review. */
  reviewer?: Reviewer
  /**
   * GitHub: set on a submitted review (pull_request_review), whose state may be `commented`; GitHub ends the
   * reviewer's request with it, which a conversation or line comment does not.
   */
  submittedReview?: true
  /**
   * The host's id of the review a review event submits or dismisses (GitHub `review.id`, as text). Bitbucket's
   * approvals have none. A dismissed id is remembered, so a replay of that review never counts again.
   */
  reviewId?: string
  /**
   * The head commit's sha, for checks on the message and the head a review from Slack is for: GitHub
   * `pull_request.head.sha`, GitLab `last_commit.id`, Bitbucket `source.commit.hash` (short, 12 characters).
   */
  head?: string
  /** A comment, its edit or its deletion (`commented`, a review with a body, `comment_changed`), for the mirror. */
  comment?: HostComment
  /** For `check_completed`: the result, for which commit and from which app or status context. */
  check?: CommitCheck
  /**
   * How the host writes this pull request's number where the message names it (`MR !7`), set by a host
   * whose words differ; the machine keeps it from the announcement on. Absent: `PR #7`.
   */
  reference?: string
}

/** `passed`: success (or neutral, skipped); `failed`: failure, timed out, errored; `pending`: not decided yet. */
export type CheckOutcome = 'passed' | 'failed' | 'pending'

/** One check result for one commit: the latest per `source` counts. */
export interface CommitCheck {
  sha: string
  /** `app:<slug>` for a check suite, `status:<context>` for a commit status. */
  source: string
  outcome: CheckOutcome
  /** When the host last changed the result (ISO-8601): a later result of the same source replaces an earlier one. */
  at: string
  /**
   * The result ran on the merge of the pull request into its target (GitLab's merged results pipelines run on
   * a merge ref whose commit is no branch's head), and the host named the pull request: it counts for the
   * current head whatever `sha` says. Absent: only a result for the head commit counts.
   */
  onMergeRef?: true
}

export type IgnoreReason =
  | 'ping'
  | 'unsupported_event'
  | 'unsupported_action'
  | 'not_a_pull_request'
  | 'invalid_payload'
  | 'no_mapping'
  | 'duplicate_delivery'
  | 'draft'
  | 'no_stored_message'
  | 'ended_before_announced'
  | 'bot_review'
  | 'unknown_commit' // a check result for a commit that is no pull request's head, as far as prherald saw
  | 'not_head_commit' // a check result for a commit that is no longer the pull request's head
  | 'pull_request_ended' // a "Start review" click on a merged or closed pull request
  | 'filtered' // the mapping entry's `ignore` (label, title or author) keeps an unannounced pull request out of Slack
  | 'dismissed_review' // a review whose id was dismissed before, submitted again (a replay)
  | 'replayed_body' // the exact body of an earlier delivery, under another delivery id (docs/security.md)

export interface Ignored {
  ignored: true
  reason: IgnoreReason
  /** Whatever the decoder could still tell, for the ignore log line. */
  event?: string
  owner?: string
  repo?: string
  number?: number
}

export type Decoded = PullRequestEvent | Ignored

/**
 * A check result about a commit (GitHub: a `check_suite` completed or a commit `status`). It names a commit,
 * not a pull request: the pull requests the host names, often none; the intake maps the commit to pull
 * requests (check-intake.ts).
 */
export interface CheckDelivery {
  check: true
  provider: Provider
  deliveryId: string
  owner: string
  repo: string
  result: CommitCheck
  /** The pull requests the payload names (check_suite.pull_requests of this repository); often none. */
  prNumbers: number[]
  sender: Actor
}

export const isCheckDelivery = (value: unknown): value is CheckDelivery => (value as { check?: unknown } | undefined)?.check === true

/** A decoded delivery: about one pull request, ignored, or a check result about a commit. */
export type Delivery = Decoded | CheckDelivery

export function isIgnored(decoded: Decoded): decoded is Ignored {
  return 'ignored' in decoded
}

/** How messages name the pull request: the host's reference, or `PR #<number>` (events stored before it existed too). */
export function referenceOf(pr: { number: number; reference?: string | undefined }): string {
  return pr.reference ?? `PR #${pr.number}`
}

/** A pull request as an event (and its lifecycle's context) names it. */
export type PullRequestId = Pick<PullRequestEvent, 'provider' | 'owner' | 'repo' | 'number'>
/** A pull request as the store keeps it (its PullRequestRef): owner/repo in one column. */
export type StoredPullRequest = { provider: Provider; repository: string; prNumber: number }

/** The stored shape of a pull request an event names: the one conversion between the two. */
export const storedPullRequest = (e: PullRequestId): StoredPullRequest =>
  ({ provider: e.provider, repository: `${e.owner}/${e.repo}`, prNumber: e.number })

/**
 * The one key of a pull request, whichever shape names it: its mailbox, its lock, its pending deliveries,
 * its mutes, the button's value and the marker of what prherald writes for it (`github:acme/api#42`).
 */
export function pullRequestKey(pr: PullRequestId | StoredPullRequest): string {
  return 'repository' in pr ? `${pr.provider}:${pr.repository}#${pr.prNumber}` : `${pr.provider}:${pr.owner}/${pr.repo}#${pr.number}`
}

/**
 * A stored `owner/repo` back into its owner and repository: the last slash, because an owner may be a nested
 * group (`group/subgroup`) and a repository never holds one. No slash: the owner is ''.
 */
export function splitRepository(repository: string): { owner: string; repo: string } {
  const slash = repository.lastIndexOf('/')
  return { owner: repository.slice(0, Math.max(0, slash)), repo: repository.slice(slash + 1) }
}
