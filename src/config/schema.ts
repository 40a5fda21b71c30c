import { HOST_IDS } from '../hosts/registry.ts'
import { LOG_FORMATS, LOG_LEVELS } from '../log/logger.ts'
import {
  array, boolean, dynamic, enums, integer, object, optional, record, refine, size, string, Struct, union, type Infer,
} from 'superstruct'
import { Cron } from 'croner'
import { holidayCalendarProblem, timeZoneProblem } from './digest-calendar.ts'
import { titleGlobProblem } from './title-glob.ts'
import { branchGlobProblem, codeOwnerProblem } from './routing-problems.ts'
import { workingHoursProblem } from './working-hours.ts'
import { workingDurationProblem } from './working-duration.ts'

/**
 * The shape of config.yaml. `object` (not `type`) so that unknown keys are errors: a typo such as
 * `chanel:` must not silently route nowhere. Refiners return the fix as their message, so the loader
 * can print it beside the key.
 */

export const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/
const MENTION = /^(<@[UW][A-Z0-9]+>|<!subteam\^S[A-Z0-9]+(\|[^>]*)?>|<!here>|<!channel>)$/

const channelId = refine(string(), 'channel_id', (value) => {
  if (CHANNEL_ID.test(value)) return true
  if (value.startsWith('#')) {
    return `"${value}" is a channel name; use the channel ID instead (in Slack: open the channel, click its name, copy the ID at the bottom, e.g. C0123456789)`
  }
  return `"${value}" is not a Slack channel ID; it starts with C, G or D followed by capitals and digits (e.g. C0123456789)`
})

const mention = refine(string(), 'mention', (value) =>
  MENTION.test(value) ||
  `"${value}" is not a Slack mention token; use <@U0123ABCD> for a user, <!subteam^S0123ABCD> for a user group, <!here> or <!channel>`)

const mentions = array(mention)

const pathRule = object({ channel: channelId, mentions: optional(mentions) })

const pathPrefix = refine(string(), 'path_prefix', (value) =>
  (value.length > 0 && !value.startsWith('/')) ||
  `"${value}" is not a directory prefix; write it relative to the repository root without a leading slash, e.g. services/billing/`)

/** One of several channels of a repository: a bare channel ID (the entry's mentions) or one with its own mentions. */
const channelTargetMembers = [channelId, object({ id: channelId, mentions: optional(mentions) })] as const
// superstruct's union keeps no members; they are its schema here so that allowed-keys.ts can list `id, mentions`.
const channelTarget = new Struct({ ...union([...channelTargetMembers]), schema: channelTargetMembers })

const reactionName = refine(string(), 'reaction_name', (value) =>
  /^[a-z0-9_+-]+$/.test(value) || `"${value}" is not a Slack emoji name; write it without colons, e.g. white_check_mark`)

/** `slack.reactions`, globally and in a mapping tier: every key optional, inherited key by key. */
const reactions = object({
  enabled: optional(boolean()),
  approved: optional(reactionName),
  commented: optional(reactionName),
  changes_requested: optional(reactionName),
  merged: optional(reactionName),
  closed: optional(reactionName),
  draft: optional(reactionName),
  bot: optional(reactionName),
  checks_failed: optional(reactionName),
  new_pr: optional(reactionName),
})

/** A 5-field cron expression (minute hour day-of-month month day-of-week), as croner reads it. */
const cronExpression = refine(string(), 'cron', (value) => {
  if (value.trim().split(/\s+/).length !== 5) return `"${value}" is not a 5-field cron expression (minute hour day month weekday), e.g. "0 9 * * 1-5"`
  try {
    new Cron(value, { paused: true })
    return true
  } catch (error) {
    return `"${value}" is not a valid cron expression (${(error as Error).message}); e.g. "0 9 * * 1-5" is 09:00 on weekdays`
  }
})

const timeZone = refine(string(), 'time_zone', (value) => timeZoneProblem(value) ?? true)
const holidayCalendar = refine(string(), 'holidays', (value) => holidayCalendarProblem(value) ?? true)

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
const weeklyTime = refine(string(), 'weekly_at', (value) =>
  /^([01]\d|2[0-3]):[0-5]\d$/.test(value) || `"${value}" is not a time of day; write HH:MM on the 24-hour clock, quoted, e.g. "09:30"`)
/** `insights.weekly` (docs/review-loop.md#weekly-summary): a channel's weekly summary, posted on `day` at `at` in digest.timezone. */
const weeklySummary = object({ channel: channelId, day: enums(WEEKDAYS), at: optional(weeklyTime) })
export type WeeklySummaryDocument = Infer<typeof weeklySummary>
// One entry or a list, chosen by the value's shape so that a mistake keeps its own message (a union would only say "no variant matched").
const weeklySummaries = dynamic<WeeklySummaryDocument | WeeklySummaryDocument[]>((value) =>
  (Array.isArray(value) ? size(array(weeklySummary), 1, 50) : weeklySummary) as unknown as Struct<WeeklySummaryDocument | WeeklySummaryDocument[], null>)

/** `digest` in a mapping tier: a repository or owner may turn its digest off or run it on its own schedule. */
const digestTier = object({ enabled: optional(boolean()), schedule: optional(cronExpression) })

const labelName = refine(string(), 'label', (value) =>
  (value.trim() !== '' && value.length <= 100) || `"${value}" is not a label name; write it as the git host shows it, e.g. wip`)
const titleGlob = refine(string(), 'title_glob', (value) => titleGlobProblem(value) ?? true)
const authorLogin = refine(string(), 'author_login', (value) =>
  /^[^\s@<>]{1,128}$/.test(value) || `"${value}" is not a login; write the login (octocat, dependabot[bot]) or the Bitbucket account id, without @`)

/** A branch glob of `only.into`/`from`: a git branch name can hold none of these (git check-ref-format). */
const branchGlob = refine(string(), 'branch_glob', (value) => branchGlobProblem(value) ?? true)

/**
 * `only` and `ignore` in a mapping tier or a `follow` entry (docs/routing.md): the same keys, each a list.
 * A pull request is announced where it matches every key `only` names and no key of `ignore`.
 */
const filterTier = object({
  labels: optional(size(array(labelName), 0, 100)),
  title: optional(union([titleGlob, size(array(titleGlob), 0, 50)])),
  authors: optional(size(array(authorLogin), 0, 500)),
  into: optional(size(array(branchGlob), 0, 50)),
  from: optional(size(array(branchGlob), 0, 50)),
})
export type FilterTier = Infer<typeof filterTier>

/** A code owner as CODEOWNERS names it: `@user`, `@org/team`, `@group/subgroup/…` (GitLab) or an email. */
const codeOwner = refine(string(), 'code_owner', (value) => codeOwnerProblem(value) ?? true)

/** `owners:` of a mapping entry: a code owner's channel, like a path rule's. */
const ownerRule = object({ channel: channelId, mentions: optional(mentions) })

/** `follow:` of a host: a channel that gets the pull requests of some people in any repository of the host. */
const followEntry = object({
  channel: channelId,
  mentions: optional(mentions),
  authors: optional(size(array(authorLogin), 1, 500)),
  team: optional(teamSlugStruct()),
  repositories: optional(size(array(titleGlob), 1, 100)),
  only: optional(filterTier),
  ignore: optional(filterTier),
})
export type FollowEntry = Infer<typeof followEntry>

export const THREAD_REPLIES = ['off', 'linked', 'everyone'] as const
export const REVIEW_ACTIONS = ['buttons', 'menu'] as const
/** `slack.talk_back.mirror`: what is said on the pull request comes into the message's thread. */
export const MIRROR = ['off', 'comments', 'all'] as const
/** Replies of Slack guests and of people from another workspace (Slack Connect): none, linked people's, or everyone's. */
export const EXTERNAL_REPLIES = ['off', 'linked', 'everyone'] as const

/** `slack.talk_back`, globally and in a mapping tier (docs/talk-back.md): what people may answer from Slack. */
const talkBack = object({
  mirror: optional(enums(MIRROR)),
  thread_replies: optional(enums(THREAD_REPLIES)),
  reviews: optional(enums(['on', 'off'] as const)),
  review_actions: optional(enums(REVIEW_ACTIONS)),
  external: optional(enums(EXTERNAL_REPLIES)),
})
export type TalkBackTier = Infer<typeof talkBack>

/** `assign.strategy`: who of the team is asked next (docs/review-loop.md, "Assigning reviewers"). */
export const ASSIGN_STRATEGIES = ['round_robin', 'least_busy'] as const

/** `assign` in a mapping tier: request review from `count` members of a team when a pull request is announced. */
const assignTier = object({
  team: teamSlugStruct(),
  count: optional(refine(integer(), 'count', (value) => (value >= 1 && value <= 10) || `${value} is not allowed; ask from 1 to 10 reviewers, e.g. count: 1`)),
  strategy: optional(enums(ASSIGN_STRATEGIES)),
  skip_away: optional(boolean()),
})
export type AssignTier = Infer<typeof assignTier>

export const mappingEntry = object({
  channel: optional(channelId),
  channels: optional(size(array(channelTarget), 1, 50)),
  mentions: optional(mentions),
  paths: optional(record(pathPrefix, pathRule)),
  slack: optional(object({ reactions: optional(reactions), thread_updates: optional(boolean()), talk_back: optional(talkBack) })),
  digest: optional(digestTier),
  only: optional(filterTier),
  ignore: optional(filterTier),
  owners: optional(record(codeOwner, ownerRule)),
  assign: optional(assignTier),
})

const positiveInteger = (fix: string, max = Number.MAX_SAFE_INTEGER): Struct<number, null> =>
  refine(integer(), 'positive', (value) => (value > 0 && value <= max) || `${value} is not allowed; ${fix}`)

export const DEPENDENCY_BOT_LAYOUTS = ['compact', 'standard'] as const

/** A git-host login as the webhook names the author: GitHub `dependabot[bot]`, a Bitbucket nickname. */
const botLogin = refine(string(), 'bot_login', (value) =>
  (value.trim() === value && /^[^\s@<>]{1,100}$/.test(value)) ||
  `"${value}" is not a login; write the author's login exactly as the host shows it, e.g. my-renovate[bot] or renovate-bot`)

/** `reviews`: global only (see docs/configuration.md for why no mapping tier overrides it). */
const reviews = object({
  ignore_bot_reviews: optional(boolean()),
  dependency_bots: optional(enums(DEPENDENCY_BOT_LAYOUTS)),
  dependency_bot_logins: optional(size(array(botLogin), 0, 100)),
})

/** A git-host login or Bitbucket account id as a key of `users:`; provider-specific rules are in people-problems.ts. */
const personKey = refine(string(), 'person_key', (value) =>
  /^[^\s@<>]{1,128}$/.test(value) ||
  `"${value}" is not a login; write the GitHub login (octocat) or the Bitbucket account id (557058:…) exactly, without @`)

/** Slack's bare user id: U… (or W… on Enterprise Grid). The mention token is built from it, never written here. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/
const slackUserId = refine(string(), 'slack_user_id', (value) => {
  if (SLACK_USER_ID.test(value)) return true
  const token = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(value)
  if (token) return `"${value}" is a mention token; write the bare user id ${token[1]}`
  return `"${value}" is not a Slack user id; write the member id (U… or W…): in Slack, open the person's profile, ⋮ More, Copy member ID`
})

/** A GitHub team's slug as the webhook names it in `requested_team.slug`. */
function teamSlugStruct() {
  return refine(string(), 'team_slug', (value) =>
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(value) ||
    `"${value}" is not a team slug; write the slug from the team's URL (github.com/orgs/acme/teams/backend: backend), without the organisation or @`)
}
const teamSlug = teamSlugStruct()

/** Slack's bare user-group id: S…. */
export const SLACK_GROUP_ID = /^S[A-Z0-9]{2,}$/
const slackGroupId = refine(string(), 'slack_group_id', (value) => {
  if (SLACK_GROUP_ID.test(value)) return true
  const token = /^<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>$/.exec(value)
  if (token) return `"${value}" is a mention token; write the bare user-group id ${token[1]}`
  return `"${value}" is not a Slack user-group id; write the group's id (S…): in Slack, People > User groups, open the group, copy the S… id from the browser's address bar`
})

const workingHours = refine(string(), 'working_hours', (value) => workingHoursProblem(value) ?? true)

/** `notify.reminders` (docs/review-loop.md#reminders): on once written, each span `Nd` or `Nh` of working time. */
const workingDuration = refine(string(), 'working_duration', (value) => workingDurationProblem(value) ?? true)
const reminders = object({
  enabled: optional(boolean()),
  after: optional(workingDuration),
  every: optional(workingDuration),
  escalate_after: optional(workingDuration),
})

/** `notify.direct_messages`: nobody, those who opt in, or everyone mapped (who may opt out). */
export const DIRECT_MESSAGES = ['off', 'opt_in', 'on'] as const
export const PERSON_DIRECT_MESSAGES = ['on', 'off'] as const

/** A `users:` value: the bare id, or the id with the person's own direct-message settings. */
const personEntry = object({
  slack: slackUserId,
  direct_messages: optional(enums(PERSON_DIRECT_MESSAGES)),
  working_hours: optional(workingHours),
})
// Chosen by the value's shape, so a mistyped bare id keeps its own message (a union would only say "no variant matched").
type UserValue = string | Infer<typeof personEntry>
const userValue = dynamic<UserValue>((value) => (typeof value === 'string' ? slackUserId : personEntry) as unknown as Struct<UserValue, null>)

/** `git_provider`: the hosts of src/hosts/registry.ts. */
export const PROVIDERS = HOST_IDS
export const SLACK_PACINGS = ['published', 'off'] as const
/** `notify.review_requests`: ping a newly requested reviewer in the message's thread, or not at all. */
export const REVIEW_REQUEST_NOTIFY = ['thread', 'off'] as const

const mappings = record(string(), record(string(), mappingEntry))
const users = record(personKey, userValue)
const teams = record(teamSlug, slackGroupId)

/** What is per host: `hosts.<id>`, or the top level of a single-host file with `git_provider`. */
const follow = size(array(followEntry), 0, 200)
const hostBlock = object({ mappings, users: optional(users), teams: optional(teams), follow: optional(follow) })
export type HostBlockDocument = Infer<typeof hostBlock>

/** `hosts:`: one block per host kind of the registry (named instances of one kind are not supported yet). */
const hosts = object(Object.fromEntries(PROVIDERS.map((id) => [id, optional(hostBlock)])) as Record<string, Struct<HostBlockDocument | undefined, unknown>>)

/**
 * Either `hosts:` (several hosts) or today's single-host form, `git_provider:` with `mappings:`, `users:` and
 * `teams:` at the top; host-blocks.ts refuses a file with both, or neither.
 */
export const configSchema = object({
  git_provider: optional(enums(PROVIDERS as string[])),
  hosts: optional(hosts),
  server: optional(object({
    listen: optional(string()),
    metrics_listen: optional(string()),
    log_format: optional(enums(LOG_FORMATS)),
    log_level: optional(enums(LOG_LEVELS)),
    // At most an hour: Node's timers cannot wait longer than about 24.8 days and would fire at once instead.
    shutdown_timeout_seconds: optional(positiveInteger('use a whole number of seconds from 1 to 3600, e.g. 25', 3600)),
    // The webhook listener and the intake on a thread of their own (docs/architecture.md, "The acknowledging thread").
    ack_thread: optional(boolean()),
  })),
  database: optional(object({
    url: optional(string()),
    // PostgreSQL replicas only: how long a server's claim on a pending delivery lasts without renewal
    // (docs/architecture.md). A dead server's deliveries move to another within about 4/3 of it.
    lease_seconds: optional(positiveInteger('use a whole number of seconds from 1 to 300, e.g. 15', 300)),
    // A failed batch is retried after retry_backoff_seconds, doubling up to 5 minutes; its deliveries are
    // parked after retry_attempts failures (docs/reliability.md, "Failed batches").
    retry_attempts: optional(positiveInteger('use a whole number from 1 to 1000, e.g. 10', 1000)),
    retry_backoff_seconds: optional(positiveInteger('use a whole number of seconds from 1 to 300, e.g. 1', 300)),
  })),
  digest: optional(object({
    enabled: optional(boolean()),
    schedule: optional(cronExpression),
    timezone: optional(timeZone),
    holidays: optional(holidayCalendar),
    mention: optional(boolean()),
    include_dependency_bots: optional(boolean()),
  })),
  cleanup: optional(object({
    message_ttl_days: optional(positiveInteger('use a whole number of days from 1 to 36500, e.g. 30', 36_500)),
  })),
  slack: optional(object({
    pacing: optional(enums(SLACK_PACINGS)),
    reactions: optional(reactions),
    lookup_users_by_email: optional(boolean()),
    thread_updates: optional(boolean()),
    socket_mode: optional(boolean()),
    talk_back: optional(talkBack),
  })),
  reviews: optional(reviews),
  notify: optional(object({
    review_requests: optional(enums(REVIEW_REQUEST_NOTIFY)),
    direct_messages: optional(enums(DIRECT_MESSAGES)),
    working_hours: optional(workingHours),
    time_zone: optional(timeZone),
    merged_without_approval: optional(refine(string(), 'merged_without_approval', (value) =>
      value === 'thread' || CHANNEL_ID.test(value) ||
      `"${value}" is neither thread nor a Slack channel ID; write thread (a line in the pull request's thread) or a channel ID such as C0123456789`)),
    reminders: optional(reminders),
  })),
  reconcile: optional(object({ on_start: optional(boolean()) })),
  // Turnaround figures (docs/review-loop.md): a compact row per pull request, kept keep_days.
  insights: optional(object({
    enabled: optional(boolean()),
    keep_days: optional(positiveInteger('use a whole number of days from 1 to 3650, e.g. 400', 3650)),
    weekly: optional(weeklySummaries),
  })),
  users: optional(users),
  teams: optional(teams),
  follow: optional(follow),
  mappings: optional(mappings),
})

export type ConfigDocument = Infer<typeof configSchema>
export type MappingEntry = Infer<typeof mappingEntry>
export type Mappings = HostBlockDocument['mappings']
export type ReactionsConfig = Infer<typeof reactions>
export type DigestTier = Infer<typeof digestTier>
