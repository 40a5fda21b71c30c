import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { validate, type Failure } from 'superstruct'
import { PrheraldError } from '../errors.ts'
import { configSchema, type ConfigDocument } from './schema.ts'
import { DEFAULTS, type HostSecrets, type HostSettings, type ListenAddress, type Secrets, type Settings } from './settings.ts'
import { databaseTargetFromUrl, hasUrlPassword, parseListen } from './parse-values.ts'
import { applyReactionTier, DEFAULT_REACTIONS } from './reactions.ts'
import { describeFailure, mappingProblems, type ConfigProblem } from './config-problems.ts'
import { emptyValueHint } from './empty-value-hint.ts'
import { parseConfigText } from './parse-config-text.ts'
import { hasUnencodedUserInfo, redactUrl } from '../log/redact-url.ts'
import { emailLookupProblems, peopleProblems } from './people-problems.ts'
import { followProblems } from './routing-problems.ts'
import { formProblems, hostBlocks, personSettingProblems, type HostBlock } from './host-blocks.ts'
import { normalisePeopleMap } from './people-map.ts'
import { hostOf } from '../hosts/registry.ts'
import { gitSecrets } from '../hosts/contract.ts'
import { directMessageSettings, slackIds } from './direct-message-settings.ts'
import { layTalkBack, TALK_BACK_DEFAULTS } from './talk-back-settings.ts'
import { weeklyProblems, weeklySettings } from './weekly-settings.ts'

export type Env = Record<string, string | undefined>

export function configFilePath(env: Env, cwd = process.cwd()): string {
  return resolve(cwd, env.PRHERALD_CONFIG_FILE || 'config.yaml')
}

/** At most this many problems are listed; a script-written file can have thousands of the same mistake. */
const MAX_LISTED = 20

function invalid(file: string, problems: ConfigProblem[]): PrheraldError {
  const lines = problems.slice(0, MAX_LISTED).map((p) => `  - ${p.line === undefined ? '' : `line ${p.line}, `}${p.key}: ${p.message}`)
  if (problems.length > MAX_LISTED) lines.push(`  - and ${problems.length - MAX_LISTED} more like these`)
  return new PrheraldError('config_invalid', `invalid configuration in ${file}:\n${lines.join('\n')}`, {
    fix: 'edit the keys listed above; the commented example config.yaml shows every key',
  })
}

/** Reads, parses and validates the config file: no environment, no defaults. */
export function readConfigDocument(file: string): ConfigDocument {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    throw new PrheraldError('config_missing', `configuration file ${file} cannot be read`, {
      cause,
      fix: 'copy the example config.yaml from the prherald repository there, or point PRHERALD_CONFIG_FILE at your file',
    })
  }
  const result = parseConfigText(text)
  if (!result.ok) throw invalid(file, result.problems)
  const { data, lineOf, lineText } = result.parsed
  const [error, value] = validate(data, configSchema)
  if (error !== undefined || value === undefined) {
    const failures = dedupeByKey(error?.failures() ?? [])
    // Every problem at once: the file's form (a top-level mappings: beside hosts:) is read from the document
    // as written, so that a bad value elsewhere does not hide it.
    const form = formProblemsOfRaw(data).map((p) => ({ ...p, line: p.path ? lineOf(p.path) : undefined }))
    throw invalid(file, [...form, ...failures.slice(0, MAX_LISTED).map((failure) => {
      const line = lineOf(failure.path)
      const hint = failure.value === null ? emptyValueHint(failure.path, line === undefined ? undefined : lineText(line)) : undefined
      return { ...describeFailure(failure), line, ...(hint ? { message: hint } : {}) }
    }), ...failures.slice(MAX_LISTED).map(describeFailure)])
  }
  const form = formProblems(value)
  const blocks = hostBlocks(value)
  // Every problem at once: the form's (a top-level mappings: beside hosts:) does not hide the blocks'.
  const problems = [
    ...form,
    ...blocks.flatMap((block) => [...peopleProblems(block), ...mappingProblems(block.mappings, block.at, hostOf(block.id)), ...followProblems(block)]),
    ...emailLookupProblems(value, blocks),
    ...personSettingProblems(blocks),
    ...weeklyProblems(value),
  ]
  if (problems.length > 0) throw invalid(file, problems.map((p, i) => (i < MAX_LISTED && p.path ? { ...p, line: lineOf(p.path) } : p)))
  return value as ConfigDocument
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The form's problems of a document the schema refused, where its top level and hosts: are at least mappings. */
function formProblemsOfRaw(data: unknown): ConfigProblem[] {
  if (!isRecord(data) || (data.hosts !== undefined && !isRecord(data.hosts))) return []
  return formProblems(data as Parameters<typeof formProblems>[0])
}

function dedupeByKey(failures: Failure[]): Failure[] {
  const seen = new Set<string>()
  return failures.filter((f) => {
    const key = f.path.join('.')
    return !seen.has(key) && seen.add(key)
  })
}

/** Config file plus environment overrides and defaults. Secrets are read separately by `readSecrets`. */
export function loadSettings(env: Env, cwd = process.cwd()): Settings {
  const configFile = configFilePath(env, cwd)
  const doc = readConfigDocument(configFile)
  const envProblem = (key: string, message: string) =>
    new PrheraldError('config_invalid', `${key}=${redactUrl(env[key] ?? '')} is invalid: ${message}`, { fix: `correct or unset ${key}` })

  const listenText = env.PRHERALD_LISTEN || doc.server?.listen || DEFAULTS.listen
  const listen = parseListen(listenText)
  if (!listen) {
    if (env.PRHERALD_LISTEN) throw envProblem('PRHERALD_LISTEN', 'use a port, :port or host:port, e.g. 8080, :8080 or 127.0.0.1:8080')
    throw invalid(configFile, [{ key: 'server.listen', message: `"${listenText}" is not an address; use a port, :port or host:port, e.g. 8080, :8080 or 127.0.0.1:8080` }])
  }
  const metricsListen = parseMetricsListen(doc.server?.metrics_listen, listen, configFile)
  const databaseUrl = env.PRHERALD_DATABASE_URL || doc.database?.url || DEFAULTS.databaseUrl
  const database = databaseTargetFromUrl(databaseUrl, cwd)
  if (!database) {
    const message = hasUnencodedUserInfo(databaseUrl)
      ? 'its password holds an unencoded / (or @), so it reads as a host and a path; percent-encode the password (/ as %2F, @ as %40), or give it through PGPASSWORD'
      : 'use a SQLite file URL such as file:./data/prherald.db, or a PostgreSQL URL such as postgres://db.example.com:5432/prherald'
    if (env.PRHERALD_DATABASE_URL) throw envProblem('PRHERALD_DATABASE_URL', message)
    throw invalid(configFile, [{ key: 'database.url', message: `"${redactUrl(databaseUrl)}" is not supported; ${message}` }])
  }
  // config.yaml is meant to be committed and reviewed: a password in it would be a secret in git.
  if (!env.PRHERALD_DATABASE_URL && database.kind === 'postgres' && hasUrlPassword(databaseUrl)) {
    throw invalid(configFile, [{
      key: 'database.url',
      message: `"${redactUrl(databaseUrl)}" holds a password; remove it from the URL and give it through the PGPASSWORD environment variable (or put the whole URL in PRHERALD_DATABASE_URL)`,
    }])
  }
  const pacingText = env.PRHERALD_SLACK_PACING || doc.slack?.pacing || DEFAULTS.slackPacing
  if (pacingText !== 'published' && pacingText !== 'off') throw envProblem('PRHERALD_SLACK_PACING', 'use published or off')
  return {
    configFile,
    lockFile: join(dirname(configFile), 'config.lock'),
    hosts: hostBlocks(doc).map((block) => hostSettings(block, env)),
    hostsForm: doc.hosts === undefined ? 'git_provider' : 'hosts',
    listen,
    metricsListen,
    logFormat: doc.server?.log_format ?? DEFAULTS.logFormat,
    logLevel: doc.server?.log_level ?? DEFAULTS.logLevel,
    shutdownTimeoutSeconds: doc.server?.shutdown_timeout_seconds ?? DEFAULTS.shutdownTimeoutSeconds,
    ackThread: doc.server?.ack_thread ?? DEFAULTS.ackThread,
    databaseUrl,
    database,
    databaseLeaseSeconds: doc.database?.lease_seconds ?? DEFAULTS.databaseLeaseSeconds,
    retryAttempts: doc.database?.retry_attempts ?? DEFAULTS.retryAttempts,
    retryBackoffSeconds: doc.database?.retry_backoff_seconds ?? DEFAULTS.retryBackoffSeconds,
    messageTtlDays: doc.cleanup?.message_ttl_days ?? DEFAULTS.messageTtlDays,
    reactions: applyReactionTier(DEFAULT_REACTIONS, doc.slack?.reactions),
    digest: {
      enabled: doc.digest?.enabled ?? DEFAULTS.digest.enabled,
      schedule: doc.digest?.schedule ?? DEFAULTS.digest.schedule,
      timezone: doc.digest?.timezone ?? DEFAULTS.digest.timezone,
      holidays: doc.digest?.holidays ?? DEFAULTS.digest.holidays,
      mention: doc.digest?.mention ?? DEFAULTS.digest.mention,
      includeDependencyBots: doc.digest?.include_dependency_bots ?? DEFAULTS.digest.includeDependencyBots,
    },
    reviews: {
      ignoreBotReviews: doc.reviews?.ignore_bot_reviews ?? DEFAULTS.reviews.ignoreBotReviews,
      dependencyBots: doc.reviews?.dependency_bots ?? DEFAULTS.reviews.dependencyBots,
      dependencyBotLogins: doc.reviews?.dependency_bot_logins ?? [],
    },
    slackPacing: pacingText,
    threadUpdates: doc.slack?.thread_updates ?? DEFAULTS.threadUpdates,
    notifyReviewRequests: doc.notify?.review_requests ?? DEFAULTS.notifyReviewRequests,
    directMessages: directMessageSettings(doc, hostBlocks(doc)),
    mergedWithoutApproval: doc.notify?.merged_without_approval,
    reminders: reminderSettings(doc.notify?.reminders),
    insights: { enabled: doc.insights?.enabled ?? DEFAULTS.insights.enabled, keepDays: doc.insights?.keep_days ?? DEFAULTS.insights.keepDays, weekly: weeklySettings(doc) },
    reconcileOnStart: doc.reconcile?.on_start ?? false,
    lookupUsersByEmail: doc.slack?.lookup_users_by_email ?? false,
    socketMode: doc.slack?.socket_mode ?? false,
    talkBack: layTalkBack(TALK_BACK_DEFAULTS, doc.slack?.talk_back),
    publicUrl: env.PRHERALD_PUBLIC_URL?.replace(/\/+$/, '') || undefined,
    api: { slack: (env.SLACK_API_URL || DEFAULTS.api.slack).replace(/\/?$/, '/') },
  }
}

/** `notify.reminders`: on once the block is written (unless `enabled: false`), each span defaulted. */
function reminderSettings(block: NonNullable<ConfigDocument['notify']>['reminders']): Settings['reminders'] {
  if (!block || block.enabled === false) return undefined
  const d = DEFAULTS.reminders
  return { after: block.after ?? d.after, every: block.every ?? d.every, escalateAfter: block.escalate_after ?? d.escalateAfter }
}

/** One host's settings: its block, its people maps as prherald matches them, its API base from the environment. */
function hostSettings(block: HostBlock, env: Env): HostSettings {
  const host = hostOf(block.id)
  return {
    id: block.id,
    host,
    mappings: block.mappings,
    users: normalisePeopleMap(host.people.caseInsensitive, slackIds(block.users)),
    teams: normalisePeopleMap(host.people.caseInsensitive, block.teams),
    apiUrl: (env[host.variables.apiUrl] || host.defaultApiUrl).replace(/\/+$/, ''),
    follow: block.follow,
  }
}

/** `server.metrics_listen`, parsed like `server.listen`; it cannot share the webhook listener's port. */
function parseMetricsListen(text: string | undefined, listen: ListenAddress, configFile: string): ListenAddress | undefined {
  if (text === undefined) return undefined
  const address = parseListen(text)
  const key = 'server.metrics_listen'
  if (!address) throw invalid(configFile, [{ key, message: `"${text}" is not an address; use host:port or :port, e.g. 127.0.0.1:9464` }])
  const overlaps = address.host === listen.host || address.host === undefined || listen.host === undefined
  if (address.port !== 0 && address.port === listen.port && overlaps) {
    throw invalid(configFile, [{ key, message: `"${text}" is the port the webhooks listen on (${listen.port}); give /metrics another port, e.g. 127.0.0.1:9464` }])
  }
  return address
}

/**
 * Reads the secrets every configured host needs (its webhook secret, its optional API credentials), and
 * talk-back's optional ones (each host's OAuth client, the token keys); throws `env_missing` naming every
 * missing variable, `config_invalid` for an OAuth client half set.
 */
export function readSecrets(env: Env, hosts: readonly (Pick<HostSettings, 'id' | 'host'> & { apiUrl?: string })[]): Secrets {
  const missing: string[] = []
  const slackBotToken = env.SLACK_BOT_TOKEN ?? ''
  if (slackBotToken.trim() === '') missing.push('SLACK_BOT_TOKEN (the bot token of your Slack app, xoxb-…)')
  const secrets: Record<string, HostSecrets> = {}
  for (const { id, host, apiUrl } of hosts) {
    const webhookSecret = env[host.variables.secret] ?? ''
    if (webhookSecret.trim() === '') missing.push(`${host.variables.secret} (the secret you set on the ${host.words.name} webhook)`)
    // Talk-back's OAuth client: none when both variables are unset, a config error when only one is.
    const oauth = host.talkBack?.readOAuth(env, apiUrl ?? host.defaultApiUrl)
    secrets[id] = { webhookSecret, gitAccess: host.readAccess(env), ...(oauth ? { oauth } : {}) }
  }
  if (missing.length > 0) {
    throw new PrheraldError('env_missing', `missing environment variables:\n${missing.map((m) => `  - ${m}`).join('\n')}`, {
      fix: 'set them in the environment or in a .env file in the working directory',
    })
  }
  const tokenKeys = { current: env.PRHERALD_TOKEN_KEY?.trim() || undefined, previous: env.PRHERALD_TOKEN_KEY_PREVIOUS?.trim() || undefined }
  return {
    slackBotToken, hosts: secrets, slackSigningSecret: readSlackSigningSecret(env), slackAppToken: readSlackAppToken(env),
    ...(tokenKeys.current || tokenKeys.previous ? { tokenKeys } : {}),
  }
}

/** SLACK_APP_TOKEN, optional: read only when slack.socket_mode is true; a blank value reads as unset. */
export function readSlackAppToken(env: Env): string | undefined {
  const token = env.SLACK_APP_TOKEN?.trim() ?? ''
  return token === '' ? undefined : token
}

/** SLACK_SIGNING_SECRET, optional: a blank value reads as unset (no button), like an absent one. */
export function readSlackSigningSecret(env: Env): string | undefined {
  const secret = env.SLACK_SIGNING_SECRET?.trim() ?? ''
  return secret === '' ? undefined : secret
}

/** Every secret value the process holds, for the logger's redaction list. */
export function secretValues(secrets: Secrets): string[] {
  return [
    secrets.slackBotToken, ...Object.values(secrets.hosts).flatMap((own) => [own.webhookSecret, ...gitSecrets(own.gitAccess), own.oauth?.clientSecret ?? '']),
    secrets.slackSigningSecret ?? '', secrets.slackAppToken ?? '', secrets.tokenKeys?.current ?? '', secrets.tokenKeys?.previous ?? '',
  ]
}
