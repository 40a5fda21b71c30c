import { cac } from 'cac'
import { handToServer } from '../control/call-control.ts'
import { controlSocketPath } from '../control/control-socket-path.ts'
import { PrheraldError } from '../errors.ts'
import { formatReport, reportFailed } from '../reconcile/format-report.ts'
import { reconcileLocally } from '../reconcile/reconcile-locally.ts'
import { commandSettings } from './load-env-file.ts'
import { parseRepository } from '../config/parse-repository.ts'
import { runCommands } from './run-commands.ts'
import { createProgress, type Progress } from '../log/progress.ts'
import { apiUrlLines, environmentHelp, extraVariableLines, hostVariableLines } from './host-variable-lines.ts'

/**
 * prherald-reconcile: brings every message prherald shows as open or draft to the pull request's real state
 * on the git host, and (GitHub) catches up on missed webhook deliveries. docs/reconcile.md.
 */
async function main(repository: string | undefined, dryRun: boolean, provider: string | undefined): Promise<void> {
  const settings = commandSettings()
  if (repository !== undefined) parseRepository(repository)
  if (!dryRun) {
    // A running server takes the work and runs it through its mailboxes; undefined: none listens.
    if (await handToServer(controlSocketPath(settings), 'reconcile', { repository: repository?.trim(), dryRun, provider }, (line) => console.log(line))) return
  }
  // Progress on standard error, per host: a bar on a terminal, a line every few seconds in a log.
  let progress: Progress | undefined
  const reports = await reconcileLocally(settings, process.env, { dryRun, repository: repository?.trim(), provider }, {
    onWait: (waitMs, resumeAt) => console.error(`waiting ${Math.ceil(waitMs / 1000)} s for the git host's rate limit (until ${new Date(resumeAt).toISOString()})`),
    onChecked: (done, total) => {
      if (done === 0) progress = createProgress('reconciling', { unit: 'pull requests', total })
      else progress?.advance()
      if (done === total) progress?.finish()
    },
  })
  for (const { host, report } of reports) {
    if (reports.length > 1) console.log(`${host}:`)
    for (const line of formatReport(report)) console.log(reports.length > 1 ? `  ${line}` : line)
    if (reportFailed(report)) process.exitCode = 1
  }
}

const cli = cac('prherald-reconcile')
cli.usage('[--dry-run] [owner/repo]')
cli.option('--dry-run', 'Print what would change (and which missed deliveries would be redelivered); change nothing')
cli.option('--provider <host>', 'Reconcile one configured host (github, gitlab, bitbucket); every configured host by default')
cli.example('prherald-reconcile --dry-run')
cli.example('prherald-reconcile acme/api')
environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml)',
  '  PRHERALD_DATABASE_URL  database (default file:./data/prherald.db, or database.url in the config)',
  ...hostVariableLines('token', (host) => `${host.words.name}: reads ${host.words.pullRequest}s (and a delivery log, where the host keeps one)`),
  ...extraVariableLines(false),
  ...apiUrlLines(),
  '  SLACK_BOT_TOKEN        edits the messages (not needed with --dry-run)',
  '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/; a local stand-in: npm run fake-slack)',
  '  PRHERALD_PUBLIC_URL    hosts with a delivery log: the webhook whose deliveries are read is the one at <url>/webhook/<git_provider>',
])

await runCommands(cli, {
  maxArgs: 1,
  run: (args, options) => {
    // cac declares its booleans to mri by their camelCase name, so mri does not see `--dry-run` as one and
    // takes the next word for its value: `--dry-run acme/api` arrives as dryRun "acme/api" and no argument.
    const swallowed = typeof options.dryRun === 'string' ? options.dryRun : undefined
    if (swallowed !== undefined && args.length > 0) throw new PrheraldError('usage', `unexpected argument "${args[0]}"`, { fix: 'give at most one owner/repo' })
    return main(args[0] ?? swallowed, options.dryRun !== undefined && options.dryRun !== false, typeof options.provider === 'string' ? options.provider : undefined)
  },
})
