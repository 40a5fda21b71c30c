import { cac } from 'cac'
import { redactUrl } from '../log/redact-url.ts'
import { chooseHosts, connectHostsFromEnv } from '../config/connect-hosts.ts'
import { PrheraldError } from '../errors.ts'
import { createLogger } from '../log/logger.ts'
import { explainLines, explainRoute } from './explain-route.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import { createWebhook } from '../setup/create-webhook.ts'
import { formatDigest } from './format-digest.ts'
import { formatFilters, formatFollow, formatOwners } from './format-filters.ts'
import { followRoutes } from '../routing/route-pull-request.ts'
import { formatDirectMessages } from './format-direct-messages.ts'
import { formatMetricsListen } from './format-metrics-listen.ts'
import { formatPeople } from './format-people.ts'
import { formatReviews } from './format-reviews.ts'
import { formatRoutes } from './format-routes.ts'
import { formatTalkBack } from './format-talk-back.ts'
import { formatThreads } from './format-threads.ts'
import { commandSettings } from './load-env-file.ts'
import { parseRepository } from '../config/parse-repository.ts'
import { runCommands } from './run-commands.ts'
import { validateCommand } from '../checks/validate-command.ts'
import { apiUrlLines, environmentHelp, extraVariableLines, hostVariableLines } from './host-variable-lines.ts'

const cli = cac('prherald-config')
const print = (line: string) => console.log(line)

cli.command('list', 'Show the mapping entries, with values inherited from "*" and slack.reactions filled in, their only/ignore filters, code owners and follow entries, where /metrics is served, the Slack pacing, thread updates, the reviews and digest settings, the users and teams maps, reminders, insights (and the weekly summaries), reconcile.on_start and slack.socket_mode').action(() => {
  const loaded = commandSettings()
  // A section per host: its mappings, its reviews' bot logins, its people; everything after them is shared.
  for (const own of loaded.hosts) {
    const hostRoutes = listRoutes(own.mappings)
    print(`${own.host.words.name} (${loaded.hostsForm === 'git_provider' ? `git_provider: ${own.id}` : `hosts.${own.id}`}, route /webhook/${own.id}):`)
    if (hostRoutes.length === 0) print('no mapping entries: every delivery is ignored')
    else for (const line of formatRoutes(hostRoutes, loaded.reactions)) print(line)
    for (const line of formatFilters(hostRoutes)) print(line)
    for (const line of formatOwners(hostRoutes)) print(line)
    for (const line of formatFollow(followRoutes(own.follow))) print(line)
    for (const line of formatReviews(loaded.reviews, own.host)) print(line)
    for (const line of formatPeople({ ...own, lookupUsersByEmail: loaded.lookupUsersByEmail }, own.host)) print(line)
    print('')
  }
  const routes = loaded.hosts.flatMap((own) => listRoutes(own.mappings))
  print(formatMetricsListen(loaded))
  print(`server.ack_thread: ${loaded.ackThread}${loaded.ackThread
    ? ' (webhook deliveries are read, verified, stored and acknowledged on a thread of their own; the main event loop processes them)'
    : ' (one event loop acknowledges and processes deliveries)'}`)
  print(`slack.socket_mode: ${loaded.socketMode}${loaded.socketMode ? " (Slack's requests over Socket Mode's WebSocket with SLACK_APP_TOKEN; no public URL needed for them)" : ' (Slack\'s requests at the HTTP routes, with SLACK_SIGNING_SECRET)'}`)
  print(`slack.pacing: ${loaded.slackPacing}${loaded.slackPacing === 'off' ? ' (only 429 Retry-After is honoured)' : " (Slack's published rate limits)"}`)
  for (const line of formatThreads(loaded.threadUpdates, routes, loaded.notifyReviewRequests)) print(line)
  for (const line of formatTalkBack(loaded.talkBack, routes)) print(line)
  for (const line of formatDirectMessages(loaded.directMessages)) print(line)
  for (const line of formatDigest(loaded.digest, routes)) print(line)
  print(`notify.merged_without_approval: ${loaded.mergedWithoutApproval ?? 'off'}${loaded.mergedWithoutApproval === 'thread' ? ' (a line in the thread of a pull request merged without an approval)' : loaded.mergedWithoutApproval ? ' (a line in that channel for a pull request merged without an approval)' : ''}`)
  print(loaded.reminders
    ? `notify.reminders: after ${loaded.reminders.after}, every ${loaded.reminders.every}, escalate_after ${loaded.reminders.escalateAfter} (each person's working time; a direct message to whoever holds a pull request, then a line in its thread)`
    : 'notify.reminders: off')
  print(`insights.enabled: ${loaded.insights.enabled}, insights.keep_days: ${loaded.insights.keepDays}${loaded.insights.enabled ? ' (turnaround figures in /prherald stats and the App Home)' : ' (no turnaround rows are kept)'}`)
  print(`insights.weekly: ${loaded.insights.weekly.length === 0 ? 'off' : `${loaded.insights.weekly.map((w) => `${w.channel} on ${w.day} at ${w.at}`).join(', ')} (${loaded.digest.timezone}; the weekly summary with its chart)`}`)
  print(`reconcile.on_start: ${loaded.reconcileOnStart}${loaded.reconcileOnStart ? ' (pull requests touched in the last day are reconciled at start-up)' : ''}`)
  print(loaded.database.kind === 'sqlite'
    ? `database: ${redactUrl(loaded.databaseUrl)} (SQLite: one server)`
    : `database: ${redactUrl(loaded.databaseUrl)} (PostgreSQL: replicas share it; database.lease_seconds ${loaded.databaseLeaseSeconds})`)
  print(`database.retry_attempts: ${loaded.retryAttempts}, database.retry_backoff_seconds: ${loaded.retryBackoffSeconds} (a failed batch is retried after ${loaded.retryBackoffSeconds} s, doubling up to 300 s; parked after ${loaded.retryAttempts} failures)`)
})

cli.command('explain <repository>', 'Show the channels a pull request would go to, the rule that sent each, and the rules that did not')
  .option('--provider <host>', 'The host of the repository, when several are configured (github, gitlab, bitbucket)')
  .option('--into <branch>', 'The target branch')
  .option('--from <branch>', 'The source branch')
  .option('--author <login>', 'The author\'s login')
  .option('--labels <labels>', 'Labels, comma-separated')
  .option('--title <title>', 'The title')
  .option('--files <paths>', 'Changed files, comma-separated (path and code owner rules need them)')
  .option('--pr <number>', 'Read this pull request through the host\'s API instead (needs the host\'s token)')
  .example('prherald-config explain acme/monorepo --into main --author alice --files services/api/server.go,web/App.tsx')
  .example('prherald-config explain acme/monorepo --pr 42')
  .action(async (repository: string, options: Record<string, unknown>) => {
    const { owner, repo } = parseRepository(repository)
    const loaded = commandSettings()
    const hosts = connectHostsFromEnv(loaded.hosts, process.env)
    const text = (key: string) => (options[key] === undefined ? undefined : String(options[key]))
    const list = (key: string) => text(key)?.split(',').map((v) => v.trim()).filter((v) => v !== '')
    const provider = text('provider') ?? chooseHosts(hosts, undefined)[0]!.id
    if (text('provider') === undefined && hosts.size > 1) {
      throw new PrheraldError('usage', 'several hosts are configured: say which one with --provider', { fix: `add --provider ${[...hosts.keys()].join(' or --provider ')}` })
    }
    const pr = text('pr') === undefined ? undefined : Number(text('pr'))
    if (pr !== undefined && !(Number.isInteger(pr) && pr >= 0)) throw new PrheraldError('usage', `--pr ${text('pr')} is not a pull request number`, { fix: 'give the number alone, e.g. --pr 42' })
    if (pr !== undefined && list('files')) throw new PrheraldError('usage', '--files and --pr both name the changed files', { fix: 'give one of them' })
    const question = { owner, repo, provider, into: text('into'), from: text('from'), author: text('author'), labels: list('labels'), title: text('title'), files: list('files'), pr }
    const logger = createLogger({ format: 'pretty', level: 'warn', write: (line) => process.stderr.write(`${line}\n`) })
    for (const line of explainLines(question, await explainRoute(hosts, question, logger))) print(line)
  })

cli.command('validate [repository]', 'Check mapping entries against Slack and the git host; write config.lock on success')
  .option('--force', 'Check every entry, even those config.lock records as validated and unchanged')
  .option('--provider <host>', 'Check one configured host (github, gitlab, bitbucket); every configured host by default')
  .example('prherald-config validate')
  .example('prherald-config validate acme/api')
  .action(async (repository: string | undefined, options: { force?: boolean; provider?: string }) => {
    const target = repository === undefined ? undefined : parseRepository(repository)
    const provider = typeof options.provider === 'string' ? options.provider : undefined
    const loaded = commandSettings()
    const ok = await validateCommand(loaded, connectHostsFromEnv(loaded.hosts, process.env), process.env, { target, force: options.force === true, provider }, print)
    if (!ok) process.exitCode = 1
  })

cli.command('create-webhook <repository>', 'GitHub: create or update the repository webhook. Bitbucket: print the steps')
  .option('--provider <host>', 'The host of the repository, when several are configured (github, gitlab, bitbucket)')
  .example('PRHERALD_PUBLIC_URL=https://prherald.example.com prherald-config create-webhook acme/api')
  .example('prherald-config create-webhook --provider gitlab acme/platform/widgets')
  .action(async (repository: string, options: { provider?: string }) => {
    const { owner, repo } = parseRepository(repository)
    await createWebhook(commandSettings(), process.env, owner, repo, print, typeof options.provider === 'string' ? options.provider : undefined)
  })

environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml); config.lock is written beside it',
  '  SLACK_BOT_TOKEN        Slack bot token, for validate',
  ...hostVariableLines('token', (host) => `${host.words.name}: webhook checks (SKIP without it) and create-webhook`),
  ...extraVariableLines(false),
  ...hostVariableLines('secret', (host) => `${host.words.name}: the secret create-webhook puts on the webhook`),
  ...apiUrlLines(),
  '  PRHERALD_PUBLIC_URL    public base URL for create-webhook, e.g. https://prherald.example.com',
  '  PRHERALD_SLACK_PACING  published or off: overrides slack.pacing (list shows the result)',
])

await runCommands(cli)
