import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings, readSecrets } from '../../src/config/load-config.ts'
import { PrheraldError } from '../../src/errors.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { configSchema, mappingEntry } from '../../src/config/schema.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

function load(yaml: string, env: Record<string, string> = {}) {
  writeFileSync(join(dir.path, 'config.yaml'), yaml)
  return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'), ...env }, dir.path)
}

function failure(yaml: string, env: Record<string, string> = {}): PrheraldError {
  try {
    load(yaml, env)
  } catch (error) {
    expect(error).toBeInstanceOf(PrheraldError)
    return error as PrheraldError
  }
  throw new Error('expected the configuration to be refused')
}

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'

describe('configuration', () => {
  it('applies defaults to a minimal file', () => {
    const s = load(`git_provider: github\n${MAPPINGS}`)
    expect(s.hosts.map((h) => h.id)).toEqual(['github'])
    expect(s.hostsForm).toBe('git_provider')
    expect(s.listen).toEqual({ host: undefined, port: 8080 })
    expect(s.shutdownTimeoutSeconds).toBe(25)
    expect(s.messageTtlDays).toBe(30)
    expect(s.database).toEqual({ kind: 'sqlite', path: join(dir.path, 'data/prherald.db') })
    expect(s.databaseLeaseSeconds).toBe(15)
    expect([s.retryAttempts, s.retryBackoffSeconds]).toEqual([10, 1])
    expect(s.lockFile).toBe(join(dir.path, 'config.lock'))
    expect(s.reactions).toEqual({ enabled: true, names: expect.objectContaining({ approved: 'white_check_mark' }), newPr: undefined })
    expect(s.api.slack).toBe('https://slack.com/api/')
  })

  it('reads reviews, with defaults when absent', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`).reviews).toEqual({ ignoreBotReviews: false, dependencyBots: 'compact', dependencyBotLogins: [] })
    const s = load(`git_provider: bitbucket\nreviews:\n  ignore_bot_reviews: true\n  dependency_bots: standard\n  dependency_bot_logins: [renovate-bot]\n${MAPPINGS}`)
    expect(s.reviews).toEqual({ ignoreBotReviews: true, dependencyBots: 'standard', dependencyBotLogins: ['renovate-bot'] })
  })

  it('reads reconcile.on_start, false when absent', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`).reconcileOnStart).toBe(false)
    expect(load(`git_provider: github\nreconcile:\n  on_start: true\n${MAPPINGS}`).reconcileOnStart).toBe(true)
  })

  it('reads users and teams as plain maps, GitHub logins and slugs lower-cased, Bitbucket account ids as written', () => {
    const github = load(`git_provider: github\nusers:\n  OctoCat: U0123ABCD\n  dave: W0456DEFG\nteams:\n  Backend: S0123ABCD\n${MAPPINGS}`)
    expect(github.hosts[0]?.users).toEqual({ octocat: 'U0123ABCD', dave: 'W0456DEFG' })
    expect(github.hosts[0]?.teams).toEqual({ backend: 'S0123ABCD' })
    expect(load(`git_provider: github\n${MAPPINGS}`).hosts[0]).toMatchObject({ users: {}, teams: {} })
    const bitbucket = load(`git_provider: bitbucket\nusers:\n  "712020:5E1B4C3A-8f0d-4a7e-9c1b-2d3e4f5a6b7c": U0123ABCD\n  5b90d99f96cb052b5f65ab5d: U0234BCDE\n${MAPPINGS}`)
    expect(bitbucket.hosts[0]?.users).toEqual({ '712020:5E1B4C3A-8f0d-4a7e-9c1b-2d3e4f5a6b7c': 'U0123ABCD', '5b90d99f96cb052b5f65ab5d': 'U0234BCDE' })
  })

  it.each([
    ['users:\n  dave: "<@U0123ABCD>"', 'users.dave', 'is a mention token; write the bare user id U0123ABCD'],
    ['users:\n  dave: "@dave"', 'users.dave', 'is not a Slack user id; write the member id (U… or W…)'],
    ['users:\n  dave: Dave Smith', 'users.dave', 'Copy member ID'],
    ['users:\n  dave: S0123ABCD', 'users.dave', 'is not a Slack user id'],
    ['users:\n  "@dave": U0123ABCD', 'users.@dave', 'is not a login'],
    ['teams:\n  backend: "<!subteam^S0123ABCD|@backend>"', 'teams.backend', 'is a mention token; write the bare user-group id S0123ABCD'],
    ['teams:\n  backend: "@backend"', 'teams.backend', 'is not a Slack user-group id'],
    ['teams:\n  acme/backend: S0123ABCD', 'teams.acme/backend', 'is not a team slug'],
    ['users:\n  Dave: U0123ABCD\n  dave: U0234BCDE', 'users.dave', 'is the same GitHub login as users.Dave (case is ignored)'],
  ])('refuses %j as config_invalid naming %s and the fix', (yaml, key, message) => {
    const error = failure(`git_provider: github\n${yaml}\n${MAPPINGS}`)
    expect(error.code).toBe('config_invalid')
    expect(error.message).toContain(`${key}: `)
    expect(error.message).toContain(message)
  })

  it('reads slack.lookup_users_by_email (default false) and refuses it on Bitbucket', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`).lookupUsersByEmail).toBe(false)
    expect(load(`git_provider: github\nslack:\n  lookup_users_by_email: true\n${MAPPINGS}`).lookupUsersByEmail).toBe(true)
    const error = failure(`git_provider: bitbucket\nslack:\n  lookup_users_by_email: true\n${MAPPINGS}`)
    expect(error.message).toContain('slack.lookup_users_by_email: does not work with Bitbucket (its API exposes no email)')
  })

  it('refuses a Bitbucket nickname as a users key, naming the fix; teams (Slack user groups, for assign:) are valid there', () => {
    const error = failure(`git_provider: bitbucket\nusers:\n  dana: U0123ABCD\nteams:\n  backend: S0123ABCD\n${MAPPINGS}`)
    expect(error.code).toBe('config_invalid')
    expect(error.message).toMatch(/line 3, users\.dana: "dana" is not an Atlassian account id; Bitbucket users are keyed by account id/)
    expect(error.message).not.toContain('teams')
  })

  it('lets PRHERALD_LISTEN, PRHERALD_DATABASE_URL and the *_API_URL variables override', () => {
    const s = load(`git_provider: bitbucket\nserver:\n  listen: ":9000"\n${MAPPINGS}`, {
      PRHERALD_LISTEN: '127.0.0.1:0', PRHERALD_DATABASE_URL: 'file:/tmp/x.db', SLACK_API_URL: 'http://127.0.0.1:1/api', BITBUCKET_API_URL: 'http://127.0.0.1:2/2.0/',
    })
    expect(s.listen).toEqual({ host: '127.0.0.1', port: 0 })
    expect(s.database).toEqual({ kind: 'sqlite', path: '/tmp/x.db' })
    expect(s.api.slack).toBe('http://127.0.0.1:1/api/')
    expect(s.hosts[0]?.apiUrl).toBe('http://127.0.0.1:2/2.0')
  })

  it('selects PostgreSQL for a postgres:// or postgresql:// URL, with the lease from database.lease_seconds', () => {
    const s = load(`git_provider: github\ndatabase:\n  url: postgres://db.example.com:5432/prherald\n  lease_seconds: 4\n${MAPPINGS}`)
    expect(s.database).toEqual({ kind: 'postgres', url: 'postgres://db.example.com:5432/prherald' })
    expect(s.databaseLeaseSeconds).toBe(4)
    // A password belongs in the environment: there it is accepted.
    const fromEnv = load(`git_provider: github\n${MAPPINGS}`, { PRHERALD_DATABASE_URL: 'postgresql://prherald:hunter22@db/prherald' })
    expect(fromEnv.database).toEqual({ kind: 'postgres', url: 'postgresql://prherald:hunter22@db/prherald' })
  })

  it('names the file and the fix when the file is missing', () => {
    const error = (() => { try { loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'nope.yaml') }, dir.path) } catch (e) { return e as PrheraldError } })()
    expect(error?.code).toBe('config_missing')
    expect(error?.message).toContain(join(dir.path, 'nope.yaml'))
    expect(error?.fix).toContain('PRHERALD_CONFIG_FILE')
  })

  const cases: Array<[string, string, RegExp]> = [
    ['missing git_provider', MAPPINGS, /git_provider: is required; set it to github, bitbucket or gitlab/],
    ['unknown provider', `git_provider: sourcehut\n${MAPPINGS}`, /git_provider: "sourcehut" is not allowed; use one of/],
    ['channel given as #name', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: "#general"\n', /mappings\.acme\.api\.channel: "#general" is a channel name; use the channel ID/],
    ['malformed channel id', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: general\n', /mappings\.acme\.api\.channel: "general" is not a Slack channel ID/],
    ['bad mention', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      mentions: ["@alice"]\n', /mappings\.acme\.api\.mentions\.0: "@alice" is not a Slack mention token/],
    ['unknown key', `git_provider: github\nserver:\n  lsten: ":80"\n${MAPPINGS}`, /server\.lsten: unknown key; remove it or fix its spelling \(allowed here: listen/],
    ['unknown key in a mapping', 'git_provider: github\nmappings:\n  acme:\n    api:\n      chanel: C0123ABC\n', /mappings\.acme\.api\.chanel: unknown key/],
    ['entry without channel and no "*"', 'git_provider: github\nmappings:\n  acme:\n    api:\n      mentions: []\n', /mappings\.acme\.api\.channel: is required: set a channel \(or channels\) here or in mappings\.acme\."\*"/],
    ['"*" without channel', 'git_provider: github\nmappings:\n  acme:\n    "*":\n      mentions: []\n', /mappings\.acme\.\*\.channel: is required/],
    ['bad log level', `git_provider: github\nserver:\n  log_level: verbose\n${MAPPINGS}`, /server\.log_level: "verbose" is not allowed; use one of/],
    ['bad log format', `git_provider: github\nserver:\n  log_format: xml\n${MAPPINGS}`, /server\.log_format: "xml" is not allowed/],
    ['zero ttl', `git_provider: github\ncleanup:\n  message_ttl_days: 0\n${MAPPINGS}`, /cleanup\.message_ttl_days: 0 is not allowed; use a whole number of days/],
    ['fractional ttl', `git_provider: github\ncleanup:\n  message_ttl_days: 1.5\n${MAPPINGS}`, /cleanup\.message_ttl_days: expected integer/],
    ['bad shutdown timeout', `git_provider: github\nserver:\n  shutdown_timeout_seconds: -1\n${MAPPINGS}`, /server\.shutdown_timeout_seconds: -1 is not allowed/],
    ['bad listen', `git_provider: github\nserver:\n  listen: "localhost"\n${MAPPINGS}`, /server\.listen: "localhost" is not an address/],
    ['bad path rule', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      paths:\n        /abs/:\n          channel: C0456DEF\n', /mappings\.acme\.api\.paths\.\/abs\/: "\/abs\/" is not a directory prefix/],
    ['path rule without channel', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      paths:\n        web/:\n          mentions: []\n', /mappings\.acme\.api\.paths\.web\/\.channel: is required/],
    ['bad digest cron', `git_provider: github\ndigest:\n  schedule: "0 9 * *"\n${MAPPINGS}`, /digest\.schedule: "0 9 \* \*" is not a 5-field cron expression/],
    ['bad digest cron field', `git_provider: github\ndigest:\n  schedule: "61 9 * * 1-5"\n${MAPPINGS}`, /digest\.schedule: "61 9 \* \* 1-5" is not a valid cron expression/],
    ['bad digest time zone', `git_provider: github\ndigest:\n  timezone: Europe/Atlantis\n${MAPPINGS}`, /digest\.timezone: "Europe\/Atlantis" is not an IANA time zone/],
    ['bad digest holidays', `git_provider: github\ndigest:\n  holidays: XX\n${MAPPINGS}`, /digest\.holidays: "XX" is not a country the holiday calendar knows/],
    ['bad tier digest cron', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      digest:\n        schedule: nope\n', /mappings\.acme\.api\.digest\.schedule: "nope" is not a 5-field cron expression/],
    ['missing mappings', 'git_provider: github\n', /mappings: is required/],
    ['YAML syntax error', 'git_provider: github\nmappings: [\n', /line \d+: [^:;]+ \(column \d+\); fix the YAML syntax there/],
    ['a mapping key without a value', 'git_provider: github\nmappings:\n  acme:\n    api:\n  oops\n', /line 5: [^:;\n]+ \(column \d+\); fix the YAML syntax there/],
    ['database URL of another kind', `git_provider: github\ndatabase:\n  url: mysql://db/prherald\n${MAPPINGS}`, /database\.url: "mysql:\/\/db\/prherald" is not supported; use a SQLite file URL .* or a PostgreSQL URL/],
    ['a password in database.url', `git_provider: github\ndatabase:\n  url: postgres://prherald:hunter22@db/prherald\n${MAPPINGS}`, /database\.url: "postgres:\/\/\*\*\*@db\/prherald" holds a password; remove it from the URL and give it through the PGPASSWORD environment variable/],
    ['a password parameter in database.url', `git_provider: github\ndatabase:\n  url: postgresql://db/prherald?user=p&password=hunter22\n${MAPPINGS}`, /database\.url: "postgresql:\/\/db\/prherald\?user=p&password=\*\*\*" holds a password/],
    ['zero lease', `git_provider: github\ndatabase:\n  lease_seconds: 0\n${MAPPINGS}`, /database\.lease_seconds: 0 is not allowed; use a whole number of seconds from 1 to 300/],
    ['zero retry attempts', `git_provider: github\ndatabase:\n  retry_attempts: 0\n${MAPPINGS}`, /database\.retry_attempts: 0 is not allowed; use a whole number from 1 to 1000/],
    ['a retry backoff past 5 minutes', `git_provider: github\ndatabase:\n  retry_backoff_seconds: 301\n${MAPPINGS}`, /database\.retry_backoff_seconds: 301 is not allowed; use a whole number of seconds from 1 to 300/],
    ['bad reaction name', `git_provider: github\nslack:\n  reactions:\n    approved: ":tada:"\n${MAPPINGS}`, /slack\.reactions\.approved: ":tada:" is not a Slack emoji name/],
    ['unknown dependency_bots layout', `git_provider: github\nreviews:\n  dependency_bots: loud\n${MAPPINGS}`, /reviews\.dependency_bots: "loud" is not allowed; use one of/],
    ['ignore_bot_reviews not a boolean', `git_provider: github\nreviews:\n  ignore_bot_reviews: sometimes\n${MAPPINGS}`, /reviews\.ignore_bot_reviews: /],
    ['a login with spaces', `git_provider: github\nreviews:\n  dependency_bot_logins: ["my renovate"]\n${MAPPINGS}`, /reviews\.dependency_bot_logins\.0: "my renovate" is not a login/],
    ['reconcile.on_start not a boolean', `git_provider: github\nreconcile:\n  on_start: sometimes\n${MAPPINGS}`, /reconcile\.on_start: /],
    ['an unknown reconcile key', `git_provider: github\nreconcile:\n  on_startup: true\n${MAPPINGS}`, /reconcile\.on_startup: unknown key/],
    ['reviews in a mapping tier', 'git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      reviews:\n        ignore_bot_reviews: true\n', /mappings\.acme\.api\.reviews: unknown key/],
  ]

  it('refuses a GitLab-style group path under a host whose owners are one name, with the form to write', () => {
    const message = failure('hosts:\n  github:\n    mappings:\n      acme/platform:\n        api:\n          channel: C0123ABC\n').message
    expect(message).toContain('hosts.github.mappings.acme/platform')
    expect(message).toContain('"acme/platform" cannot match: a GitHub organisation is one name, without "/"')
    expect(message).toContain('hosts.github.mappings: { acme: { platform: { channel: … } } }')
  })

  it('reports a top-level mappings: beside hosts: and the hosts\' own problems at once', () => {
    const message = failure('mappings:\n  acme:\n    api:\n      channel: C0123ABC\nhosts:\n  github:\n    mappings:\n      acme:\n        api: {}\n').message
    expect(message).toContain('mappings: is at the top beside hosts:')
    expect(message).toContain('hosts.github.mappings.acme.api.channel: is required')
  })

  it.each(cases)('refuses %s, naming the file and the key', (_name, yaml, pattern) => {
    const error = failure(yaml)
    expect(error.code).toBe('config_invalid')
    expect(error.message).toContain(join(dir.path, 'config.yaml'))
    expect(error.message).toMatch(pattern)
  })

  /** The keys listed after "allowed here:" in the error about `key`. */
  const allowedIn = (yaml: string, key: string) =>
    new RegExp(`${key.replaceAll('.', '\\.')}: unknown key; remove it or fix its spelling \\(allowed here: ([^)]*)\\)`).exec(failure(yaml).message)?.[1]?.split(', ')

  it('lists every key the schema takes where an unknown key stands, the newer ones too (read from the schema)', () => {
    const top = allowedIn(`git_provider: github\nnotfy: {}\n${MAPPINGS}`, 'notfy')
    expect(top).toEqual(Object.keys(configSchema.schema))
    expect(top).toEqual(expect.arrayContaining(['notify', 'reconcile', 'reviews', 'digest']))
    const entry = allowedIn('git_provider: github\nmappings:\n  acme:\n    api:\n      channel: C0123ABC\n      ignor: {}\n', 'mappings.acme.api.ignor')
    expect(entry).toEqual(Object.keys(mappingEntry.schema))
    expect(entry).toContain('ignore')
    expect(allowedIn(`git_provider: github\nnotify:\n  direct_message: on\n${MAPPINGS}`, 'notify.direct_message')).toEqual(['review_requests', 'direct_messages', 'working_hours', 'time_zone', 'merged_without_approval', 'reminders'])
    expect(allowedIn('git_provider: github\nmappings:\n  acme:\n    api:\n      channels: [{ id: C0123ABC, mention: [] }]\n', 'mappings.acme.api.channels.0.mention')).toEqual(['id', 'mentions'])
    expect(allowedIn(`git_provider: github\nusers:\n  octocat: { slack: U0123ABCD, dm: on }\n${MAPPINGS}`, 'users.octocat.dm')).toEqual(['slack', 'direct_messages', 'working_hours'])
  })

  it('names a bad PRHERALD_LISTEN variable', () => {
    const error = failure(`git_provider: github\n${MAPPINGS}`, { PRHERALD_LISTEN: 'nowhere' })
    expect(error.message).toContain('PRHERALD_LISTEN=nowhere')
  })

  it('reads a bare port as every interface on that port, from PRHERALD_LISTEN and server.listen', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`, { PRHERALD_LISTEN: '8080' }).listen).toEqual({ host: undefined, port: 8080 })
    expect(load(`git_provider: github\nserver:\n  listen: "9090"\n${MAPPINGS}`).listen).toEqual({ host: undefined, port: 9090 })
    expect(load(`git_provider: github\nserver:\n  listen: "0"\n${MAPPINGS}`).listen).toEqual({ host: undefined, port: 0 })
    expect(load(`git_provider: github\n${MAPPINGS}`, { PRHERALD_LISTEN: 'localhost:8081' }).listen).toEqual({ host: 'localhost', port: 8081 })
    expect(load(`git_provider: github\n${MAPPINGS}`, { PRHERALD_LISTEN: '[::1]:8082' }).listen).toEqual({ host: '::1', port: 8082 })
  })

  it.each(['localhost8080', '80800', 'host:', '1.2.3.4 8080', '[::1]8080', ':'])('refuses PRHERALD_LISTEN=%s in one line naming the variable, and the same in server.listen naming the file', (value) => {
    const error = failure(`git_provider: github\n${MAPPINGS}`, { PRHERALD_LISTEN: value })
    expect(error.message).toBe(`PRHERALD_LISTEN=${value} is invalid: use a port, :port or host:port, e.g. 8080, :8080 or 127.0.0.1:8080`)
    expect(error.fix).toBe('correct or unset PRHERALD_LISTEN')
    const fromFile = failure(`git_provider: github\nserver:\n  listen: "${value}"\n${MAPPINGS}`)
    expect(fromFile.message).toContain(join(dir.path, 'config.yaml'))
    expect(fromFile.message).toContain(`server.listen: "${value}" is not an address`)
  })

  it('inherits from "*" and accepts mentions: [] as mention nobody', () => {
    const s = load('git_provider: github\nmappings:\n  acme:\n    "*":\n      channel: C0123ABC\n      mentions: ["<!here>"]\n    api: {}\n    web:\n      mentions: []\n')
    expect(s.hosts[0]?.mappings.acme?.api).toEqual({})
    expect(s.hosts[0]?.mappings.acme?.web?.mentions).toEqual([])
  })
})

describe('secrets', () => {
  it('requires SLACK_BOT_TOKEN and the provider secret, naming both', () => {
    let error: PrheraldError | undefined
    try { readSecrets({}, [{ id: 'bitbucket', host: hostOf('bitbucket') }]) } catch (e) { error = e as PrheraldError }
    expect(error?.code).toBe('env_missing')
    expect(error?.message).toContain('SLACK_BOT_TOKEN')
    expect(error?.message).toContain('BITBUCKET_WEBHOOK_SECRET')
    expect(error?.message).not.toContain('GITHUB_WEBHOOK_SECRET')
  })

  it('reads the provider token and, for Bitbucket, the auth email verbatim', () => {
    const s = readSecrets({ SLACK_BOT_TOKEN: 'xoxb-1', BITBUCKET_WEBHOOK_SECRET: 's', BITBUCKET_TOKEN: 't', BITBUCKET_AUTH_EMAIL: ' a@b.c ' }, [{ id: 'bitbucket', host: hostOf('bitbucket') }])
    expect(s).toEqual({
      slackBotToken: 'xoxb-1',
      hosts: { bitbucket: { webhookSecret: 's', gitAccess: { token: 't', extra: { BITBUCKET_AUTH_EMAIL: ' a@b.c ' }, scheme: 'set: HTTP Basic with a scoped API token' } } },
    })
  })
})
