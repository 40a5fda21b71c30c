import { formatChecks } from '../checks/check-result.ts'
import { slackAuthCheck } from '../checks/slack-auth-check.ts'
import { parseRepository } from '../cli/parse-repository.ts'
import type { Env } from '../config/load-config.ts'
import { HOSTS, HOST_IDS, hostOf } from '../hosts/registry.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { Asker } from './asker.ts'
import { listBotChannels, resolveChannel, type BotChannel } from './bot-channels.ts'
import { normaliseMentions } from './normalise-mentions.ts'
import type { SetupAnswers } from './render-setup-files.ts'
import { generateWebhookSecret } from './webhook-secret.ts'

/** Answers given on the command line (or by their environment variables); the rest are asked. */
export interface SetupFlags {
  provider?: string | undefined
  slackToken?: string | undefined
  channel?: string | undefined
  repository?: string | undefined
  mentions?: string | undefined
  publicUrl?: string | undefined
  gitToken?: string | undefined
}

export interface AskSetupDeps {
  flags: SetupFlags
  /** Defaults for the flags: SLACK_BOT_TOKEN, PRHERALD_PUBLIC_URL and the provider's token, when set. */
  env: Env
  ask: Asker
  /** false with --yes: optional questions take their empty default, and a failed check ends the run. */
  interactive: boolean
  slackApiUrl: string
  print: (line: string) => void
}

const TOKEN_TRIES = 3

/** The wizard's questions in order, each answered by its flag when given. Checks the Slack token at once. */
export async function askSetup(deps: AskSetupDeps): Promise<SetupAnswers> {
  const { ask } = deps
  const set = (name: string) => (deps.env[name]?.trim() ? deps.env[name] : undefined)
  const flags: SetupFlags = { ...deps.flags, slackToken: deps.flags.slackToken ?? set('SLACK_BOT_TOKEN'), publicUrl: deps.flags.publicUrl ?? set('PRHERALD_PUBLIC_URL') }
  const provider = flags.provider ?? await ask.select('Which git host sends the webhooks?', {
    flag: '--provider',
    initial: HOST_IDS[0],
    choices: [...HOSTS.values()].map((host) => ({ value: host.id, label: host.words.product })),
  })
  if (!HOST_IDS.includes(provider)) {
    throw new PrheraldError('usage', `"${provider}" is not a git provider`, { fix: `use --provider ${HOST_IDS.join(' or --provider ')}` })
  }
  const host = hostOf(provider)

  const slackToken = await askSlackToken({ ...deps, flags })
  const slack = { token: slackToken, apiUrl: deps.slackApiUrl }
  const channel = await askChannel({ ...deps, flags }, () => listBotChannels(slack))

  const repository = parseRepository(flags.repository ?? await ask.text(
    `Repository (${host.words.repositoryExample})`,
    { flag: '--repository', placeholder: 'acme/api' },
  ))
  const optional = async (value: string | undefined, question: string, flag: string) =>
    (value ?? (deps.interactive ? await ask.text(question, { flag, initial: '' }) : '')).trim()
  const mentions = normaliseMentions(await optional(flags.mentions, 'Who is pinged when a pull request is first announced? (member IDs U…, group IDs S…, here; optional)', '--mentions'))
  const publicUrl = await optional(flags.publicUrl, 'Public URL the git host delivers to, e.g. https://prherald.example.com (optional)', '--public-url')
  if (publicUrl !== '' && !/^https?:\/\/[^\s/]+/.test(publicUrl)) {
    throw new PrheraldError('usage', `"${publicUrl}" is not a URL`, { fix: 'give the public base URL, e.g. https://prherald.example.com' })
  }
  const tokenName = host.variables.token
  const gitToken = await optional(flags.gitToken ?? set(tokenName), `${tokenName} (optional: the webhook check, path rules${host.webhook.manualSteps ? '' : ' and creating the webhook'} use it)`, '--git-token')

  return {
    provider,
    slackToken,
    channel,
    owner: repository.owner,
    repo: repository.repo,
    mentions,
    webhookSecret: generateWebhookSecret(),
    publicUrl: publicUrl === '' ? undefined : publicUrl.replace(/\/+$/, ''),
    gitToken: gitToken === '' ? undefined : gitToken,
  }
}

/** auth.test and the scopes, right away: a wrong token is asked for again (up to 3 times) or ends an unattended run. */
async function askSlackToken(deps: AskSetupDeps): Promise<string> {
  let given = deps.flags.slackToken
  for (let attempt = 1; ; attempt++) {
    const token = (given ?? await deps.ask.text('Slack bot token (xoxb-…, under OAuth & Permissions in your Slack app)', { flag: '--slack-token' })).trim()
    given = undefined
    const result = await slackAuthCheck({ token, apiUrl: deps.slackApiUrl })
    for (const line of formatChecks([result])) deps.print(line)
    if (result.status !== 'FAIL') return token
    if (!deps.interactive || attempt >= TOKEN_TRIES) {
      throw new PrheraldError('validation_failed', `the Slack token was not accepted: ${result.reason}`, { fix: result.fix })
    }
  }
}

/** Offers the channels the bot is in, by name; stores the ID. A typed name must be one of them. */
async function askChannel(deps: AskSetupDeps, list: () => Promise<BotChannel[]>): Promise<string> {
  let channels: BotChannel[] = []
  try {
    channels = await list()
  } catch (error) {
    // Without the list, a channel ID still works; a name cannot be resolved and says so below.
    if (!isPrheraldError(error)) throw error
    deps.print(`note: the bot's channels could not be listed: ${error.message}${error.fix ? ` (${error.fix})` : ''}`)
  }
  if (deps.flags.channel !== undefined) return resolveChannel(deps.flags.channel, channels)
  if (channels.length === 0) {
    if (deps.interactive) deps.print('The bot is in no channel yet: in Slack, /invite @your-bot in the channel it should post to.')
    return resolveChannel(await deps.ask.text('Channel ID (C…)', { flag: '--channel' }), channels)
  }
  const other = '(another)'
  const picked = await deps.ask.select('Which channel hears about the pull requests?', {
    flag: '--channel',
    choices: [...channels.map((c) => ({ value: c.id, label: `#${c.name} (${c.id})` })), { value: other, label: 'another channel (type its ID)' }],
  })
  return resolveChannel(picked === other ? await deps.ask.text('Channel ID (C…)', { flag: '--channel' }) : picked, channels)
}
