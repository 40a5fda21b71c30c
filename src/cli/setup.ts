#!/usr/bin/env node
import './require-supported-node.ts'
import { isAbsolute, relative, resolve } from 'node:path'
import { cac } from 'cac'
import { consola } from 'consola'
import { loadSettings, SECRET_VARIABLES, type Env } from '../config/load-config.ts'
import { PrheraldError } from '../errors.ts'
import { askSetup, type SetupFlags } from '../setup/ask-setup.ts'
import { unattended, type Asker } from '../setup/asker.ts'
import { renderConfig, renderEnvFile, type SetupAnswers } from '../setup/render-setup-files.ts'
import { setupWebhook } from '../setup/setup-webhook.ts'
import { writeSetupFiles } from '../setup/write-setup-files.ts'
import { runCommands } from './run-commands.ts'
import { validateCommand } from './validate-command.ts'

interface Options {
  provider?: unknown
  slackToken?: unknown
  channel?: unknown
  repository?: unknown
  mentions?: unknown
  publicUrl?: unknown
  gitToken?: unknown
  createWebhook?: boolean
  config?: unknown
  yes?: boolean
  force?: boolean
  help?: boolean
}

const print = (line: string) => console.log(line)
// cac reads `--channel 123` as a number; every answer is text.
const text = (value: unknown) => (value === undefined || value === true ? undefined : String(value))

/** consola's prompts; Ctrl+C rejects, which ends the wizard before anything is written. */
const prompts: Asker = {
  // An empty answer comes back undefined; it means the question's default.
  text: async (question, { initial, placeholder }) => (await consola.prompt(question, { type: 'text', initial, placeholder, cancel: 'reject' })) ?? initial ?? '',
  select: async (question, { choices, initial }) =>
    String(await consola.prompt(question, { type: 'select', options: choices.map((c) => ({ value: c.value, label: c.label })), initial, cancel: 'reject' })),
  confirm: (question, { initial }) => consola.prompt(question, { type: 'confirm', initial, cancel: 'reject' }),
}

function relativeOrAbsolute(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel
}

/** What every later prherald command in this directory will see: the environment plus what the wizard wrote. */
function writtenEnv(answers: SetupAnswers, configFile: string): Env {
  const names = SECRET_VARIABLES[answers.provider]
  return {
    ...process.env,
    PRHERALD_CONFIG_FILE: configFile,
    SLACK_BOT_TOKEN: answers.slackToken,
    [names.secret]: answers.webhookSecret,
    [names.token]: answers.gitToken ?? '',
    PRHERALD_PUBLIC_URL: answers.publicUrl ?? '',
  }
}

async function main(options: Options): Promise<boolean> {
  const interactive = options.yes !== true
  if (interactive && !process.stdin.isTTY) {
    throw new PrheraldError('usage', 'no terminal to ask the questions on', { fix: 'run it in a terminal, or pass --yes with the answers as flags (prherald-setup --help)' })
  }
  const ask = interactive ? prompts : unattended
  const configFile = resolve(text(options.config) ?? 'config.yaml')
  const envFile = resolve('.env')
  // .env stays in the working directory, where every prherald command reads it; it names any other config file.
  const configForEnv = configFile === resolve('config.yaml') ? undefined : relativeOrAbsolute(configFile)
  const flags: SetupFlags = {
    provider: text(options.provider), slackToken: text(options.slackToken), channel: text(options.channel),
    repository: text(options.repository), mentions: text(options.mentions), publicUrl: text(options.publicUrl), gitToken: text(options.gitToken),
  }
  const slackApiUrl = (process.env.SLACK_API_URL || 'https://slack.com/api/').replace(/\/?$/, '/')
  const answers = await askSetup({ flags, env: process.env, ask, interactive, slackApiUrl, print })

  await writeSetupFiles(
    [{ path: configFile, text: renderConfig(answers), mode: 0o644 }, { path: envFile, text: renderEnvFile(answers, configForEnv), mode: 0o600 }],
    (path) => (options.force === true ? Promise.resolve(true) : ask.confirm(`${path} exists. Overwrite it?`, { flag: '--force', initial: false })),
  )
  print(`wrote ${configFile}`)
  print(`wrote ${envFile} (mode 0600: the Slack token and the webhook secret)`)

  const env = writtenEnv(answers, configFile)
  const settings = loadSettings(env)
  await setupWebhook({
    answers, settings, env, envFile, ask, print,
    create: options.createWebhook ?? (interactive ? undefined : false),
    showSecret: interactive && process.stdout.isTTY === true,
  })

  print('')
  print('Checking the configuration (as prherald-config validate --force does):')
  const ok = await validateCommand(settings, env, { target: undefined, force: true }, print)
  print('')
  print(ok
    ? 'Done. Start prherald here with prherald-server, then prove the path with prherald-smoke.'
    : 'The files are written; fix the FAIL lines above, then run prherald-config validate.')
  return ok
}

const cli = cac('prherald-setup')
cli.usage('[--yes] [options]')
cli.option('--provider <github|bitbucket>', 'The git host that sends the webhooks')
cli.option('--slack-token <token>', 'Slack bot token, xoxb-… (default: SLACK_BOT_TOKEN; the variable keeps it out of shell history)')
cli.option('--channel <id-or-name>', 'Channel ID, or the name of a channel the bot is in (#name)')
cli.option('--repository <owner/repo>', 'The repository to announce (Bitbucket: workspace/repository-slug)')
cli.option('--mentions <list>', 'Who is pinged on the first announcement: member IDs U…, group IDs S…, here, channel')
cli.option('--public-url <url>', 'Public base URL the git host delivers to (default: PRHERALD_PUBLIC_URL)')
cli.option('--git-token <token>', 'GITHUB_TOKEN or BITBUCKET_TOKEN, optional (default: the variable)')
cli.option('--create-webhook', 'GitHub: create the webhook (needs --public-url and --git-token); asked unless --yes')
cli.option('--config <file>', 'Where to write the config (default: ./config.yaml); .env always goes in the working directory')
cli.option('--yes', 'Ask nothing: answers come from the flags, and a missing one is an error')
cli.option('--force', 'Overwrite an existing config.yaml or .env without asking')
cli.example('prherald-setup')
cli.example('SLACK_BOT_TOKEN=xoxb-… prherald-setup --yes --provider github --channel C0123456789 --repository acme/api')
cli.help((sections) => {
  sections.push({
    title: 'Environment',
    body: [
      '  SLACK_BOT_TOKEN        default of --slack-token',
      '  GITHUB_TOKEN           or BITBUCKET_TOKEN: default of --git-token',
      '  PRHERALD_PUBLIC_URL    default of --public-url',
      '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/)',
      '  GITHUB_API_URL         GitHub API base (default https://api.github.com)',
    ].join('\n'),
  })
})

// Strict like every prherald CLI: --version, and an unknown option or argument is a usage error (exit 2).
await runCommands(cli, {
  maxArgs: 0,
  run: async (_args, options) => {
    if (!(await main(options as Options))) process.exitCode = 1
  },
})
