import { cac } from 'cac'
import { validateAtStartup } from '../checks/validate-at-startup.ts'
import { connectHosts } from '../config/connect-hosts.ts'
import { readSecrets, secretValues } from '../config/load-config.ts'
import { createLogger } from '../log/logger.ts'
import { databaseSecrets } from '../store/database-secrets.ts'
import { startService, type RunningService } from '../service.ts'
import { commandSettings } from './load-env-file.ts'
import { reportError } from '../log/report-error.ts'
import { runCommands } from './run-commands.ts'
import { apiUrlLines, environmentHelp, extraVariableLines, hostVariableLines, oauthVariableLines } from './host-variable-lines.ts'
import { limitHeapGrowth } from '../memory/heap-limits.ts'
import { startIdleRelease } from '../memory/idle-release.ts'

/**
 * prherald-server: configuration first (exit 1 on any problem), signal handlers, validation of new or changed
 * mapping entries (exit 1 on any FAIL), then the service.
 */
async function main(force: boolean): Promise<void> {
  // The server's own heap sizing, so that no operator has to pass node flags for a lean process.
  limitHeapGrowth()
  const settings = commandSettings()
  const secrets = readSecrets(process.env, settings.hosts)
  const logger = createLogger({
    format: settings.logFormat,
    level: settings.logLevel,
    redact: [...secretValues(secrets), ...databaseSecrets(settings.databaseUrl, process.env)],
  })
  // Handlers first: a signal that arrives while validating or starting must not kill the process mid-step.
  let service: RunningService | undefined
  let pendingSignal = false
  const stop = (running: RunningService) => running.stop().then(() => process.exit(0), (error: unknown) => {
    reportError(error)
    process.exit(1)
  })
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info('signal received', { signal })
    if (service) void stop(service)
    else pendingSignal = true
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)

  // Here rather than in startService, so that a FAIL stops the process before the database or the listener opens.
  // Every host and its API client, built once for the checks and the service alike.
  const hosts = connectHosts(settings.hosts, secrets.hosts)
  await validateAtStartup({ settings, secrets, hosts, logger, force })
  // Nothing is open yet, so a signal received during validation needs no drain.
  if (pendingSignal) process.exit(0)
  // A service that stopped itself (its acknowledging thread ended) exits non-zero: the supervisor starts it again.
  service = await startService({ settings, secrets, hosts, logger, onFailure: () => process.exit(1) })
  if (pendingSignal) void stop(service)
  else startIdleRelease({ logger })
}

const cli = cac('prherald-server')
cli.usage('[--force]')
cli.option('--force', 'Validate every mapping entry at start-up, ignoring config.lock')
environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml); config.lock is written beside it',
  '  SLACK_BOT_TOKEN        Slack bot token (required)',
  ...hostVariableLines('secret', (host) => `${host.words.name}: the webhook secret, required when ${host.id} is configured`),
  ...hostVariableLines('token', (host) => `${host.words.name} (optional): path routing, reconcile, the webhook check, the email look-up`),
  ...extraVariableLines(true),
  '  SLACK_SIGNING_SECRET   (optional) the Slack app\'s signing secret: the "Start review" button and its route',
  '  SLACK_APP_TOKEN        (with slack.socket_mode: true) the app-level token (xapp-…) Socket Mode connects with',
  '  PRHERALD_TOKEN_KEY     (talk-back) 32 random bytes in base64 sealing people\'s linked host tokens at rest',
  ...oauthVariableLines(),
  '  PRHERALD_LISTEN        listen address, overrides server.listen (default :8080)',
  '  PRHERALD_DATABASE_URL  database URL, overrides database.url (default file:./data/prherald.db);',
  '                         postgres://… lets several replicas share one PostgreSQL database',
  '  PGUSER, PGPASSWORD     PostgreSQL credentials, when not in PRHERALD_DATABASE_URL (and the other PG* variables)',
  '  PRHERALD_PUBLIC_URL    public base URL, reported by prherald-doctor and used by create-webhook',
  '  PRHERALD_SLACK_PACING  published or off, overrides slack.pacing (default published)',
  '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/; a local stand-in: npm run fake-slack)',
  ...apiUrlLines(),
])

await runCommands(cli, {
  maxArgs: 0,
  // Exit rather than set exitCode: a failure halfway through start-up may leave handles open.
  run: (_args, options) => main(options.force === true).catch((error: unknown) => {
    reportError(error)
    process.exit(1)
  }),
})
