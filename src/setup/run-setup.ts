import { isAbsolute, relative, resolve } from 'node:path'
import { validateCommand } from '../checks/validate-command.ts'
import { connectHostsFromEnv } from '../config/connect-hosts.ts'
import { reportError } from '../log/report-error.ts'
import { loadSettings, type Env } from '../config/load-config.ts'
import { hostOf } from '../hosts/registry.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { askSetup, type SetupFlags } from './ask-setup.ts'
import { unattended } from './asker.ts'
import { renderConfig, renderEnvFile, type SetupAnswers } from './render-setup-files.ts'
import { askCreateWebhook, setupWebhook } from './setup-webhook.ts'
import { terminalAsker, type Terminal } from './terminal-asker.ts'
import { writeSetupFiles } from './write-setup-files.ts'
import { addHostToConfig, addHostToEnv, existingHosts, readText } from './add-host.ts'
import { existsSync } from 'node:fs'
import { parseEnv } from 'node:util'

/** The command line of prherald-setup, values as text. */
export interface SetupOptions extends SetupFlags {
  createWebhook?: boolean | undefined
  config?: string | undefined
  yes: boolean
  force: boolean
}

export interface SetupIo {
  cwd: string
  env: Env
  /** Where the questions are asked: stdin and stdout when stdin is a terminal, else undefined. */
  terminal: Terminal | undefined
  /** A person reads the output (not a pipe or a log): the Bitbucket secret may be shown. */
  outputIsTerminal: boolean
  print: (line: string) => void
  printError: (text: string) => void
}

/** Exit status of a run ended by Ctrl+C at a question, as a shell reports SIGINT (128 + 2). */
export const CANCELLED_STATUS = 130

/** What every later prherald command in this directory will see: the environment plus what the wizard wrote. */
function writtenEnv(env: Env, answers: SetupAnswers, configFile: string): Env {
  const names = hostOf(answers.provider).variables
  return {
    ...env,
    PRHERALD_CONFIG_FILE: configFile,
    SLACK_BOT_TOKEN: answers.slackToken,
    ...(answers.slackAppToken ? { SLACK_APP_TOKEN: answers.slackAppToken } : {}),
    [names.secret]: answers.webhookSecret,
    [names.token]: answers.gitToken ?? '',
    ...(answers.gitApiUrl ? { [names.apiUrl]: answers.gitApiUrl } : {}),
    ...answers.gitVariables,
    PRHERALD_PUBLIC_URL: answers.publicUrl ?? '',
    ...Object.fromEntries((answers.talkBack?.oauthVariables ?? []).filter(([, value]) => value !== undefined)),
    ...(answers.talkBack?.tokenKey ? { PRHERALD_TOKEN_KEY: answers.talkBack.tokenKey } : {}),
  }
}

/** The PRHERALD_TOKEN_KEY of the .env about to be replaced, written again: a new key would unlink everyone. */
function keepTokenKey(answers: SetupAnswers, envFile: string): SetupAnswers {
  const kept = answers.talkBack && existsSync(envFile) ? parseEnv(readText(envFile)).PRHERALD_TOKEN_KEY?.trim() : undefined
  return kept && answers.talkBack ? { ...answers, talkBack: { ...answers.talkBack, tokenKey: kept } } : answers
}

/**
 * prherald-setup: asks (or reads the flags), writes config.yaml and .env, sets up the webhook, checks.
 * Returns the exit status: 0, 1 for a failure reported on printError or failing checks, 130 for Ctrl+C.
 * Every question comes before the files are written, so a cancelled or failed answer writes nothing.
 */
export async function runSetup(options: SetupOptions, io: SetupIo): Promise<number> {
  try {
    return (await setup(options, io)) ? 0 : 1
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    reportError(error, io.printError)
    return error.code === 'cancelled' ? CANCELLED_STATUS : 1
  }
}

async function setup(options: SetupOptions, io: SetupIo): Promise<boolean> {
  const { print } = io
  const interactive = !options.yes
  if (interactive && !io.terminal) {
    throw new PrheraldError('usage', 'no terminal to ask the questions on', { fix: 'run it in a terminal, or pass --yes with the answers as flags (prherald-setup --help)' })
  }
  const ask = io.terminal && interactive ? terminalAsker(io.terminal) : unattended
  const configFile = resolve(io.cwd, options.config ?? 'config.yaml')
  const envFile = resolve(io.cwd, '.env')
  // .env stays in the working directory, where every prherald command reads it; it names any other config file.
  const rel = relative(io.cwd, configFile)
  const configForEnv = configFile === resolve(io.cwd, 'config.yaml') ? undefined : rel.startsWith('..') || isAbsolute(rel) ? configFile : rel
  const slackApiUrl = (io.env.SLACK_API_URL || 'https://slack.com/api/').replace(/\/?$/, '/')
  const asked = keepTokenKey(await askSetup({ flags: options, env: io.env, ask, interactive, slackApiUrl, print }), envFile)
  const answers: SetupAnswers = io.env.SLACK_API_URL?.trim() ? { ...asked, slackApiUrl: io.env.SLACK_API_URL.trim() } : asked
  const create = await askCreateWebhook(answers, options.createWebhook ?? (interactive ? undefined : false), ask)

  // A valid configuration for other hosts gets this host added beside them, not overwritten; --force still replaces it.
  const hosts = options.force ? undefined : existingHosts(configFile)
  const adding = hosts !== undefined && !hosts.includes(answers.provider)
  const configText = adding ? addHostToConfig(readText(configFile), answers) : renderConfig(answers)
  const envText = adding && existsSync(envFile) ? addHostToEnv(readText(envFile), answers) : renderEnvFile(answers, configForEnv)
  await writeSetupFiles(
    [{ path: configFile, text: configText, mode: 0o644 }, { path: envFile, text: envText, mode: 0o600 }],
    (path) => (adding || options.force ? Promise.resolve(true) : ask.confirm(`${path} exists. Overwrite it?`, { flag: '--force', initial: false })),
  )
  if (adding) {
    print(`added ${hostOf(answers.provider).words.name} to ${configFile} (hosts.${answers.provider}), beside ${hosts.join(', ')}, which are kept`)
    print(`wrote ${envFile} (mode 0600: ${hostOf(answers.provider).variables.secret} added, the other lines kept)`)
  } else {
    print(`wrote ${configFile}`)
    print(`wrote ${envFile} (mode 0600: the Slack token and the webhook secret)`)
  }

  const env = writtenEnv(io.env, answers, configFile)
  const settings = loadSettings(env, io.cwd)
  await setupWebhook({ answers, settings, env, envFile, print, create, showSecret: interactive && io.outputIsTerminal })

  print('')
  print('Checking the configuration (as prherald-config validate --force does):')
  const ok = await validateCommand(settings, connectHostsFromEnv(settings.hosts, env), env, { target: undefined, force: true, provider: adding ? answers.provider : undefined }, print)
  print('')
  print(ok
    ? 'Done. Start prherald here with prherald-server, then prove the path with prherald-smoke.'
    : 'The files are written; fix the FAIL lines above, then run prherald-config validate.')
  return ok
}
