import type { DEPENDENCY_BOT_LAYOUTS, DIRECT_MESSAGES, FollowEntry, REVIEW_REQUEST_NOTIFY, Mappings, SLACK_PACINGS, WEEKDAYS } from './schema.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { GitHost, HostAccess } from '../hosts/contract.ts'
import type { OAuthClient } from '../hosts/talk-back-contract.ts'
import type { TalkBackSettings } from './talk-back-settings.ts'

export type ReviewRequestNotify = (typeof REVIEW_REQUEST_NOTIFY)[number]
export type DirectMessagesSetting = (typeof DIRECT_MESSAGES)[number]

/** The personal side's settings (docs/notifications.md), after defaults. */
export interface DirectMessageSettings {
  /** `notify.direct_messages`. */
  mode: DirectMessagesSetting
  /** The file sets `notify.direct_messages` (a chosen opt_in nobody can use is warned about, the default is not). */
  modeChosen?: boolean
  /** `notify.working_hours`: everyone's, unless they set their own. */
  workingHours: string
  /** `notify.time_zone`: for people whose Slack profile has no time zone. */
  timeZone: string
  /** What `users:` says per person, by Slack user id; /prherald and the home tab override it. */
  people: Record<string, { directMessages?: 'on' | 'off' | undefined; workingHours?: string | undefined }>
}
import type { LogFormat, LogLevel } from '../log/logger.ts'
/** `published`: pace Slack calls to Slack's published limits. `off`: only honour 429s. */
export type SlackPacingSetting = (typeof SLACK_PACINGS)[number]
export type { ReactionKey } from '../../machines/reaction-key.ts'
import type { ReactionKey } from '../../machines/reaction-key.ts'

/** The reactions a message carries, after inheritance: the emoji for each machine key, and whether to react at all. */
export interface ReactionSettings {
  enabled: boolean
  names: Record<ReactionKey, string>
  /** Added to every message when set (off by default). */
  newPr: string | undefined
}

/** `digest`, after defaults; a mapping tier may still override `enabled` and `schedule`. */
export interface DigestSettings {
  enabled: boolean
  /** 5-field cron expression, read in `timezone`. */
  schedule: string
  timezone: string
  /** `DE` or `DE-BY`; undefined: only weekends are skipped. */
  holidays: string | undefined
  /** Put the channel's mentions on the digest's parent message (thread replies never notify). */
  mention: boolean
  includeDependencyBots: boolean
}

export type DependencyBotLayout = (typeof DEPENDENCY_BOT_LAYOUTS)[number]

/** `reviews`: how bot activity shows in the channel. Global, applied by the intake. */
export interface ReviewSettings {
  /** Bots' reviews and comments change nothing and are not recorded (reason bot_review). */
  ignoreBotReviews: boolean
  /** How pull requests opened by a dependency bot are announced. */
  dependencyBots: DependencyBotLayout
  /** `reviews.dependency_bot_logins` as written; the effective list adds the host's built-ins (dependency-bump.ts). */
  dependencyBotLogins: string[]
}

export interface ListenAddress {
  /** undefined listens on every interface, as `:8080` does. */
  host: string | undefined
  port: number
}

/** Where prherald keeps its state: a SQLite file (one server), or a PostgreSQL database (any number of replicas). */
export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

/** Everything non-secret, after defaults and environment overrides. */
export interface Settings {
  configFile: string
  lockFile: string
  /** Every configured host, in the registry's order: `hosts:`, or the one of a single-host file. */
  hosts: readonly HostSettings[]
  /** How the file names them: `hosts:`, or the single-host form (`git_provider:` with top-level mappings). */
  hostsForm: 'hosts' | 'git_provider'
  listen: ListenAddress
  /** `server.metrics_listen`: /metrics on a listener of its own; undefined serves it on `listen`. */
  metricsListen: ListenAddress | undefined
  /**
   * `server.ack_thread`: the webhook listener, its intake and the acknowledgement run on a thread of their own,
   * beside the event loop that processes (src/ack-thread/); off: one event loop does both.
   */
  ackThread: boolean
  logFormat: LogFormat
  logLevel: LogLevel
  shutdownTimeoutSeconds: number
  databaseUrl: string
  database: DatabaseTarget
  /** PostgreSQL: how long a claim on a pending delivery lasts without renewal. */
  databaseLeaseSeconds: number
  /** Failed batches of a pull request before its pending deliveries are parked. */
  retryAttempts: number
  /** The first wait before a failed batch is retried; it doubles, up to 5 minutes. */
  retryBackoffSeconds: number
  messageTtlDays: number
  reactions: ReactionSettings
  digest: DigestSettings
  reviews: ReviewSettings
  slackPacing: SlackPacingSetting
  /** `slack.thread_updates`: a reply in the message's thread per event that changes it; a mapping tier may override it. */
  threadUpdates: boolean
  /** `notify.review_requests`: `thread` pings a newly requested, mapped reviewer in the message's thread. */
  notifyReviewRequests: ReviewRequestNotify
  /** `notify.direct_messages`, `notify.working_hours`, `notify.time_zone` and the people's own settings in `users:`. */
  directMessages: DirectMessageSettings
  /** `notify.merged_without_approval`: `thread`, a channel ID, or undefined (off). */
  mergedWithoutApproval: string | undefined
  /** `notify.reminders` (docs/review-loop.md#reminders); undefined: off. */
  reminders: ReminderSettings | undefined
  /** `insights`: whether turnaround rows are kept, and for how long (docs/review-loop.md). */
  insights: InsightSettings
  /** `reconcile.on_start`: reconcile the pull requests touched in the last day once at start-up (docs/reconcile.md). */
  reconcileOnStart: boolean
  /** `slack.lookup_users_by_email` (GitHub only): find unmapped people by their profile's public email. */
  lookupUsersByEmail: boolean
  /** `slack.socket_mode`: Slack's requests arrive over Socket Mode's WebSocket (SLACK_APP_TOKEN), not at the HTTP routes. */
  socketMode: boolean
  /** `slack.talk_back`, the global tier (defaults applied); a repository's comes from `talkBackOf(route)` (src/config/talk-back-settings.ts). */
  talkBack: TalkBackSettings
  publicUrl: string | undefined
  /** SLACK_API_URL; each host's API base is in its HostSettings. */
  api: { slack: string }
}

/** `notify.reminders`, after defaults: spans of each person's working time, `Nd` or `Nh` (working-duration.ts). */
export interface ReminderSettings {
  /** How long a pull request waits on someone before their first reminder. */
  after: string
  /** The least working time between two reminders of one person about one pull request. */
  every: string
  /** How long it waits on someone before one line in its thread names them. */
  escalateAfter: string
}

/** `insights`, after defaults. */
export interface InsightSettings {
  /** Each pull request's turnaround row is written by its batches; off, nothing is written or read. */
  enabled: boolean
  /** How long a turnaround row is kept after its last change, however short `cleanup.message_ttl_days` is. */
  keepDays: number
  /** `insights.weekly`: the channels that get the weekly summary, each once (empty: none). */
  weekly: readonly WeeklySetting[]
}

export type Weekday = (typeof WEEKDAYS)[number]

/** One `insights.weekly` entry, after defaults: the channel, and the weekday and time (in digest.timezone) it is posted. */
export interface WeeklySetting {
  channel: string
  day: Weekday
  /** `HH:MM`. */
  at: string
}

/** What is per host: `hosts.<id>` (or the top level of a single-host file), after defaults. */
export interface HostSettings {
  id: Provider
  host: GitHost
  mappings: Mappings
  /**
   * `users:`: this host's person -> bare Slack user id (U…/W…). Keyed by GitHub login (lower-cased) or
   * Bitbucket account id; read it with mappedId (src/people/people-map.ts).
   */
  users: Record<string, string>
  /** `teams:`: team slug (lower-cased) -> bare Slack user-group id (S…). */
  teams: Record<string, string>
  /** The host's API base (GITHUB_API_URL, …; src/hosts/<host>/index.ts). */
  apiUrl: string
  /** `follow:`: channels that get some people's pull requests in any repository of the host (docs/routing.md). */
  follow?: readonly FollowEntry[] | undefined
}

/** One host's secrets, from the variables the host names. */
export interface HostSecrets {
  webhookSecret: string
  /** The host's optional API credentials (GITHUB_TOKEN, BITBUCKET_TOKEN, …). */
  gitAccess: HostAccess
  /** Talk-back's OAuth client on this host (its *_OAUTH_CLIENT_ID and *_OAUTH_CLIENT_SECRET); undefined: nobody links there. */
  oauth?: OAuthClient | undefined
}

/** Only ever read from the environment; never logged. */
export interface Secrets {
  slackBotToken: string
  /** By host id, for every configured host. */
  hosts: Readonly<Record<string, HostSecrets>>
  /**
   * SLACK_SIGNING_SECRET: verifies Slack's requests to /webhook/slack/interactions. Set, open pull requests get
   * the "Start review" button; unset, there is neither button nor route (docs/slack-app.md#start-review).
   */
  slackSigningSecret?: string | undefined
  /** SLACK_APP_TOKEN: the app-level token (xapp-…, connections:write) Socket Mode connects with (slack.socket_mode). */
  slackAppToken?: string | undefined
  /**
   * PRHERALD_TOKEN_KEY and PRHERALD_TOKEN_KEY_PREVIOUS as set: they seal people's linked tokens. Checked (32
   * bytes in base64) by src/talk-back/token-cipher.ts at the start; config/ does not import talk-back/.
   */
  tokenKeys?: { current: string | undefined; previous: string | undefined }
}

export const DEFAULTS = {
  listen: ':8080',
  logFormat: 'pretty',
  logLevel: 'info',
  shutdownTimeoutSeconds: 25,
  ackThread: false,
  databaseUrl: 'file:./data/prherald.db',
  databaseLeaseSeconds: 15,
  retryAttempts: 10,
  retryBackoffSeconds: 1,
  messageTtlDays: 30,
  reminders: { after: '1d', every: '1d', escalateAfter: '3d' },
  insights: { enabled: false, keepDays: 400, weekly: [] },
  digest: { enabled: true, schedule: '0 9 * * 1-5', timezone: 'UTC', holidays: undefined, mention: false, includeDependencyBots: false },
  reviews: { ignoreBotReviews: false, dependencyBots: 'compact' },
  slackPacing: 'published',
  threadUpdates: false,
  notifyReviewRequests: 'thread',
  directMessages: 'opt_in',
  workingHours: '08:00-19:00',
  timeZone: 'UTC',
  reactions: {
    approved: 'white_check_mark',
    commented: 'speech_balloon',
    changes_requested: 'exclamation',
    merged: 'twisted_rightwards_arrows',
    closed: 'x',
    draft: 'construction',
    bot: 'robot_face',
    checks_failed: 'red_circle',
  },
  api: { slack: 'https://slack.com/api/' },
} as const satisfies Pick<Settings, 'logFormat' | 'logLevel' | 'shutdownTimeoutSeconds' | 'ackThread' | 'databaseUrl' | 'databaseLeaseSeconds' | 'retryAttempts'
  | 'retryBackoffSeconds' | 'messageTtlDays' | 'insights' | 'digest' | 'slackPacing' | 'threadUpdates' | 'notifyReviewRequests' | 'api'> & {
  listen: string
  reviews: Pick<ReviewSettings, 'ignoreBotReviews' | 'dependencyBots'>
  directMessages: DirectMessagesSetting
  workingHours: string
  timeZone: string
  reactions: Record<ReactionKey, string>
  reminders: ReminderSettings
}
