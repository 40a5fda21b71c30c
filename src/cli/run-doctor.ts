import { cac } from 'cac'
import { checkPrinter, countByStatus, formatChecks, formatCounts, type CheckResult } from '../checks/check-result.ts'
import { createCheckContext, credentialsFromEnv } from '../checks/check-context.ts'
import { connectHosts, type HostSet } from '../config/connect-hosts.ts'
import { appTokenCheck } from '../checks/app-token-check.ts'
import { readSlackAppToken } from '../config/load-config.ts'
import { ownerAccessResults } from '../checks/owner-access-check.ts'
import { routingResults } from '../checks/routing-check.ts'
import { configSection, databaseSection, mappingsSection } from '../checks/preflight.ts'
import { reportResults, validateEntries } from '../checks/validate-entries.ts'
import { isPrheraldError } from '../errors.ts'
import { hostLock, readConfigLock } from '../lock/config-lock.ts'
import { redactUrl } from '../log/redact-url.ts'
import { databaseSecrets } from '../store/database-secrets.ts'
import { inspectDatabase, type DatabaseReport } from '../store/inspect-database.ts'
import { loadEnvFile } from './load-env-file.ts'
import { parseRepository } from '../config/parse-repository.ts'
import { runCommands } from './run-commands.ts'
import type { HostSecrets, Settings } from '../config/settings.ts'
import { hasCredentials } from '../hosts/contract.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import { apiUrlLines, environmentHelp, extraVariableLines, hostVariableLines } from './host-variable-lines.ts'
import { talkBackSection } from '../checks/talk-back-section.ts'
import { reviewLoopSection } from '../checks/review-loop-check.ts'

const print = (line: string) => console.log(line)

function section(title: string, results: CheckResult[]): CheckResult[] {
  print(`[${title}]`)
  for (const line of formatChecks(results)) print(`  ${line}`)
  return results
}

/** Each host with its API client from the environment's credentials; unusable ones (the [config] section has said why) count as none. */
function doctorHosts(env: NodeJS.ProcessEnv, settings: Settings): HostSet {
  const secrets: Record<string, HostSecrets> = {}
  for (const own of settings.hosts) {
    try {
      secrets[own.id] = { webhookSecret: '', gitAccess: own.host.readAccess(env) }
    } catch (error) {
      // One host's unusable credentials count as none for that host only: connectHosts gives it none.
      if (!isPrheraldError(error)) throw error
    }
  }
  return connectHosts(settings.hosts, secrets)
}

/**
 * prherald-doctor [owner/repo]: a preflight that changes nothing. It reads the config and the database (which
 * it never creates or migrates) and, with a repository, asks Slack and the git host what validate asks.
 */
async function doctor(repository: string | undefined): Promise<boolean> {
  const target = repository === undefined ? undefined : parseRepository(repository)
  loadEnvFile()
  const env = process.env
  const all: CheckResult[] = []
  const config = configSection(env)
  all.push(...section('config', config.results))
  const settings = config.settings
  if (!settings) {
    all.push(...section('database', [{ name: 'file', target: 'database', status: 'SKIP', reason: 'not checked: the config did not load' }]))
    all.push(...section('mappings', [{ name: 'entries', target: 'config', status: 'SKIP', reason: 'not checked: the config did not load' }]))
  } else {
    let database: CheckResult[]
    let linked: DatabaseReport['linkedKeyIds'] | undefined
    const store = settings.database
    const where = store.kind === 'sqlite' ? store.path : redactUrl(store.url)
    try {
      // The PostgreSQL driver is loaded only for a PostgreSQL URL.
      const report = store.kind === 'sqlite'
        ? await inspectDatabase(store.path)
        : await (await import('../store/inspect-postgres-database.ts')).inspectPostgresDatabase(store.url, databaseSecrets(store.url, env))
      database = databaseSection(where, report, settings.hosts.map((h) => h.id))
      linked = report?.linkedKeyIds
    } catch (error) {
      if (!isPrheraldError(error)) throw error
      database = [{ name: 'file', target: where, status: 'FAIL', reason: error.message, fix: error.fix }]
    }
    all.push(...section('database', database))
    const credentials = credentialsFromEnv(env)
    const hosts = doctorHosts(env, settings)
    // Socket Mode's app-level token: present, the right kind, accepted by Slack (doctor only; the server checks the first two).
    if (settings.socketMode) all.push(...section('slack', [await appTokenCheck(true, readSlackAppToken(env), settings.api.slack)]))
    const { lock } = readConfigLock(settings.lockFile, settings.hosts.map((h) => h.id))
    // A section per host: its mappings, its owners' access, its live checks; one host's API down is that host's line.
    const several = settings.hosts.length > 1
    for (const own of hosts.values()) {
      const named = (title: string) => (several ? `${title}: ${own.host.words.name}` : title)
      all.push(...section(named('mappings'), mappingsSection(settings, own, hasCredentials(own.gitAccess), hostLock(lock, own.id))))
      const owners = [...new Set(listRoutes(own.mappings).map((r) => r.owner))]
      const ownerAccess = await ownerAccessResults(own.api, owners)
      if (ownerAccess.length > 0) all.push(...section(named('access'), ownerAccess))
      const routing = await routingResults(own, createCheckContext(settings, own, credentials).slack)
      if (routing.length > 0) all.push(...section(named('routing'), routing))
      if (target) {
        // Live checks print as they complete, like prherald-config validate.
        const title = named(`${target.owner}/${target.repo}`)
        print(`[${title}]`)
        const report = await validateEntries(createCheckContext(settings, own, credentials), [target], checkPrinter((line) => print(`  ${line}`), ['SLACK_BOT_TOKEN', `${target.owner}/${target.repo}`]))
        all.push(...reportResults(report))
      }
    }
    const reviewLoop = await reviewLoopSection(credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined, settings)
    if (reviewLoop.length > 0) all.push(...section('review loop', reviewLoop))
    const talkBack = await talkBackSection(settings, hosts, env, credentials, linked)
    if (talkBack.length > 0) all.push(...section('talk-back', talkBack))
  }
  if (target && !settings) {
    all.push(...section(`${target.owner}/${target.repo}`, [{ name: 'checks', target: `${target.owner}/${target.repo}`, status: 'FAIL', reason: 'not run: the config did not load', fix: 'fix the [config] problems first' }]))
  }
  print(formatCounts(all))
  return countByStatus(all).FAIL === 0
}

const cli = cac('prherald-doctor')
cli.usage('[<owner>/<repo>]\n\nPreflight of config, database and mappings; with <owner>/<repo>, also the Slack and webhook checks for it')
cli.example('prherald-doctor')
cli.example('prherald-doctor acme/api')
environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml)',
  '  PRHERALD_DATABASE_URL  database (default file:./data/prherald.db, or database.url in the config)',
  '  SLACK_BOT_TOKEN        Slack bot token',
  ...hostVariableLines('secret', (host) => `${host.words.name}: the webhook secret, when ${host.words.name} is configured (git_provider: ${host.id} or hosts.${host.id})`),
  ...hostVariableLines('token', (host) => `${host.words.name} (optional): the webhook check`),
  ...extraVariableLines(true),
  ...apiUrlLines(),
  '  SLACK_SIGNING_SECRET   (optional) the Start review button, /prherald and the home tab',
  '  SLACK_APP_TOKEN        with slack.socket_mode: true, the app-level token (xapp-…) Socket Mode connects with',
  '  PRHERALD_TOKEN_KEY     with slack.talk_back on: the key people\'s tokens are sealed with (checked, never printed)',
  '  <HOST>_OAUTH_CLIENT_ID, <HOST>_OAUTH_CLIENT_SECRET  with slack.talk_back on: each host\'s OAuth client (docs/talk-back.md)',
  'Secrets are reported as set or missing, never printed.',
  'Exit status 1 when any line is FAIL.',
])

await runCommands(cli, {
  maxArgs: 1,
  run: async (args) => {
    if (!(await doctor(args[0]))) process.exitCode = 1
  },
})
