import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { cac } from 'cac'
import { handToServer } from '../control/call-control.ts'
import { controlSocketPath } from '../control/control-socket-path.ts'
import { runDigestLocally, weeklyDryRun } from '../digest/run-digest-locally.ts'
import { PrheraldError } from '../errors.ts'
import { createLogger } from '../log/logger.ts'
import { commandSettings } from './load-env-file.ts'
import { runCommands } from './run-commands.ts'
import { environmentHelp } from './host-variable-lines.ts'

interface Options {
  weekly?: boolean
  out?: unknown
  dryRun?: boolean
  force?: boolean
  channel?: unknown
  at?: unknown
}

/** An instant, not a wall-clock time: the offset (or Z) is required, so the moment does not depend on this machine's zone. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/

function parseAt(value: unknown): number {
  if (value === undefined) return Date.now()
  const text = String(value)
  const at = ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) {
    throw new PrheraldError('usage', `--at ${text} is not an ISO date-time with an offset`, { fix: 'e.g. --at 2026-11-23T09:00:00+01:00 or --at 2026-11-23T08:00:00Z' })
  }
  return at
}

function parseChannels(value: unknown): string[] | undefined {
  if (value === undefined) return undefined
  const channels = (Array.isArray(value) ? value : [value]).map(String)
  const bad = channels.find((c) => !/^[A-Z0-9]{2,}$/.test(c))
  if (bad !== undefined) throw new PrheraldError('usage', `--channel ${bad} is not a Slack channel ID`, { fix: 'use the ID, such as C0123ABCDEF (prherald-config list shows them)' })
  return channels
}

/** `--weekly --dry-run`: the weekly summary's text on stdout, its chart in `--out`; nothing posted (the servers post it at its time). */
async function weekly(options: Options): Promise<void> {
  if (options.dryRun !== true) {
    throw new PrheraldError('usage', '--weekly only shows the weekly summary: the servers post it at its time (insights.weekly)', {
      fix: 'add --dry-run, e.g. prherald-digest --weekly --dry-run --out weekly.png',
    })
  }
  const out = resolve(options.out === undefined ? 'weekly.png' : String(options.out))
  const { text, png } = await weeklyDryRun(commandSettings(), parseAt(options.at))
  try {
    writeFileSync(out, png)
  } catch (cause) {
    throw new PrheraldError('usage', `the chart cannot be written to ${out}`, { cause, fix: 'give --out a file in a directory you can write to' })
  }
  console.log(text)
  console.error(`dry run: the chart is in ${out}; nothing posted`)
}

async function main(options: Options): Promise<void> {
  if (options.weekly === true) return weekly(options)
  const settings = commandSettings()
  const request = { at: parseAt(options.at), channels: parseChannels(options.channel), dryRun: options.dryRun === true, force: options.force === true }
  const controlPath = controlSocketPath(settings)
  if (!request.dryRun) {
    // A running server posts it, through its own pacer: this process must not race it.
    if (await handToServer(controlPath, 'digest', { at: request.at, channels: request.channels, force: request.force }, (line) => console.log(line))) return
  }
  const slackToken = process.env.SLACK_BOT_TOKEN ?? ''
  if (!request.dryRun && slackToken.trim() === '') {
    throw new PrheraldError('env_missing', 'SLACK_BOT_TOKEN is not set: no server runs to post the digest, so this command posts it', {
      fix: 'set SLACK_BOT_TOKEN in the environment or in .env (the server\'s value), or run with --dry-run',
    })
  }
  const logger = createLogger({ format: 'pretty', level: 'warn', write: (line) => process.stderr.write(`${line}\n`), redact: [slackToken] })
  const result = await runDigestLocally({ settings, slackToken, logger, controlPath }, request)
  for (const line of result.lines) console.log(line)
  if (result.failedChannels > 0) process.exitCode = 1
}

const cli = cac('prherald-digest')
cli.usage('[--dry-run] [--force] [--channel <id>]… [--at <ISO date-time>]\n       prherald-digest --weekly --dry-run [--out <file.png>] [--at <ISO date-time>]')
cli.option('--dry-run', 'Only print the digest; post nothing')
cli.option('--weekly', 'With --dry-run: the weekly summary (insights.weekly) instead: its text on stdout, its chart written to --out')
cli.option('--out <file>', 'With --weekly: where the chart (PNG) is written (default: weekly.png)')
cli.option('--force', 'Post even in a channel that already had its digest that day')
cli.option('--channel <id>', 'Only this Slack channel ID (repeat for more)')
cli.option('--at <date-time>', 'Build it as of this moment, e.g. 2026-11-23T09:00:00+01:00 (default: now)')
cli.example('prherald-digest --dry-run --at 2026-11-23T09:00:00Z')
cli.example('prherald-digest --weekly --dry-run --out weekly.png')
environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml): the digest settings and mappings',
  '  PRHERALD_DATABASE_URL  database (default file:./data/prherald.db, or database.url in the config)',
  '  SLACK_BOT_TOKEN        posts the digest when no server runs (a running server posts it with its own)',
  '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/)',
])

await runCommands(cli, { maxArgs: 0, run: (_args, options) => main(options as Options) })
