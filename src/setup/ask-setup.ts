import { appTokenShape } from '../checks/app-token-check.ts'
import { formatChecks } from '../checks/check-result.ts'
import { slackAuthCheck } from '../checks/slack-auth-check.ts'
import { parseRepository } from '../config/parse-repository.ts'
import type { Env } from '../config/load-config.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { HOSTS, HOST_IDS, hostOf } from '../hosts/registry.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { askApiUrl } from './ask-api-url.ts'
import { askDirectMessages } from './ask-direct-messages.ts'
import { askTalkBack, type TalkBackFlags } from './ask-talk-back.ts'
import { askValid } from './ask-valid.ts'
import { missingFlags, type Asker } from './asker.ts'
import { listBotChannels, resolveChannel, type BotChannel } from './bot-channels.ts'
import { normaliseMentions } from './normalise-mentions.ts'
import { parseUrl } from './parse-url.ts'
import { publicUrlProblem } from '../config/public-url.ts'
import type { SetupAnswers } from './render-setup-files.ts'
import { generateWebhookSecret } from './webhook-secret.ts'

/** Answers given on the command line (or by their environment variables); the rest are asked. */
export interface SetupFlags extends TalkBackFlags {
  provider?: string | undefined
  slackToken?: string | undefined
  channel?: string | undefined
  repository?: string | undefined
  mentions?: string | undefined
  publicUrl?: string | undefined
  gitToken?: string | undefined
  /** The git host's API base (GITHUB_API_URL, …) for a self-managed install; '' for the cloud host. */
  gitApiUrl?: string | undefined
  /** SLACK_APP_TOKEN (xapp-…): given, Slack's requests come over Socket Mode (slack.socket_mode: true). */
  slackAppToken?: string | undefined
  /** notify.direct_messages: off, opt_in (the default with --yes) or on. */
  directMessages?: string | undefined
  /** Credentials other than the token, by variable (a GitHub App's id and key file): written to .env as given. */
  gitVariables?: Readonly<Record<string, string>> | undefined
}

export interface AskSetupDeps {
  flags: SetupFlags
  /** Defaults for the flags: SLACK_BOT_TOKEN, PRHERALD_PUBLIC_URL and the provider's token, when set. */
  env: Env
  ask: Asker
  /** false with --yes: optional questions take their empty default, and a wrong answer ends the run. */
  interactive: boolean
  slackApiUrl: string
  print: (line: string) => void
}

/** The answers --yes cannot do without, by their flag. */
const REQUIRED = { provider: '--provider', slackToken: '--slack-token', channel: '--channel', repository: '--repository' } as const

function parseProvider(answer: string): Provider {
  if (HOST_IDS.includes(answer)) return answer
  throw new PrheraldError('usage', `"${answer}" is not a git provider`, { fix: `use --provider ${HOST_IDS.join(' or --provider ')}` })
}

const PUBLIC_URL_FIX = 'give the public base URL, e.g. https://prherald.example.com'
function parsePublicUrl(answer: string): string | undefined {
  const url = parseUrl(answer, PUBLIC_URL_FIX)
  const problem = url === undefined ? undefined : publicUrlProblem(url)
  if (problem) throw new PrheraldError('usage', `"${url}" ${problem}`, { fix: PUBLIC_URL_FIX })
  return url
}

/** The wizard's questions in order, each answered by its flag when given and asked again while wrong. Checks the Slack token at once. */
export async function askSetup(deps: AskSetupDeps): Promise<SetupAnswers> {
  const { ask } = deps
  const set = (name: string) => (deps.env[name]?.trim() ? deps.env[name] : undefined)
  const flags: SetupFlags = {
    ...deps.flags, slackToken: deps.flags.slackToken ?? set('SLACK_BOT_TOKEN'), publicUrl: deps.flags.publicUrl ?? set('PRHERALD_PUBLIC_URL'),
    slackAppToken: deps.flags.slackAppToken ?? set('SLACK_APP_TOKEN'),
  }
  if (!deps.interactive) {
    const missing = Object.entries(REQUIRED).filter(([key]) => flags[key as keyof typeof REQUIRED] === undefined)
    if (missing.length > 0) throw missingFlags(missing.map(([key, flag]) => (key === 'slackToken' ? `${flag} (or SLACK_BOT_TOKEN)` : flag)))
  }
  const valid = <T>(given: string | undefined, question: () => Promise<string>, check: (answer: string) => T | Promise<T>) =>
    askValid({ given, ask: question, check, retry: deps.interactive, print: deps.print })

  const provider = await valid(flags.provider, () => ask.select('Which git host sends the webhooks?', {
    flag: REQUIRED.provider,
    initial: HOST_IDS[0],
    choices: [...HOSTS.values()].map((host) => ({ value: host.id, label: host.words.product })),
  }), parseProvider)
  const host = hostOf(provider)

  const slackToken = await valid(flags.slackToken, () => ask.secret('Slack bot token (xoxb-…, under OAuth & Permissions in your Slack app)', { flag: REQUIRED.slackToken }),
    (answer) => checkSlackToken(answer.trim(), deps))
  const channels = await botChannels(deps, slackToken)
  const channel = await valid(flags.channel, () => askChannel(ask, channels), (answer) => resolveChannel(answer, channels))

  const repository = await valid(flags.repository, () => ask.text(
    `Repository (${host.words.repositoryExample})`,
    { flag: REQUIRED.repository, placeholder: 'acme/api' },
  ), parseRepository)
  // Optional: --yes takes the empty answer; on a terminal an empty answer is accepted.
  const optional = <T>(given: string | undefined, question: () => Promise<string>, check: (answer: string) => T) =>
    valid(given ?? (deps.interactive ? undefined : ''), question, (answer) => check(answer.trim()))
  const mentions = await optional(flags.mentions,
    () => ask.text('Who is pinged when a pull request is first announced? (member IDs U…, group IDs S…, here; optional)', { flag: '--mentions', initial: '' }),
    normaliseMentions)
  const directMessages = await askDirectMessages(deps, flags.directMessages)
  const slackAppToken = await optional(flags.slackAppToken,
    () => ask.secret('Slack app-level token for Socket Mode (xapp-…, optional: the button, /prherald and the home tab with no public URL)', { flag: '--slack-app-token' }),
    parseAppToken)
  const publicUrl = await optional(flags.publicUrl,
    () => ask.text('Public URL the git host delivers to, e.g. https://prherald.example.com (optional)', { flag: '--public-url', initial: '' }),
    parsePublicUrl)
  const gitApiUrl = await askApiUrl(deps, host, flags.gitApiUrl)
  const tokenName = host.variables.token
  const gitVariables = flags.gitVariables ?? {}
  const other = Object.keys(gitVariables).length > 0
  // Other credentials given (an app): no token is asked for, since the host refuses both at once.
  const gitToken = other ? '' : await optional(flags.gitToken ?? set(tokenName),
    () => ask.secret(`${tokenName} (optional: the webhook check, path rules${host.webhook.manualSteps ? '' : ' and creating the webhook'} use it)`, { flag: '--git-token' }),
    (answer) => answer)
  const talkBack = await askTalkBack(deps, host, flags, publicUrl)

  return {
    provider,
    slackToken,
    slackAppToken,
    channel,
    owner: repository.owner,
    repo: repository.repo,
    mentions,
    directMessages,
    webhookSecret: generateWebhookSecret(),
    publicUrl,
    gitToken: gitToken === '' ? undefined : gitToken,
    gitApiUrl,
    gitVariables,
    talkBack,
  }
}

/** An app-level token, or none: Socket Mode stays off (docs/slack-app.md#socket-mode). */
function parseAppToken(answer: string): string | undefined {
  if (answer === '') return undefined
  const shape = appTokenShape(true, answer)
  if (shape.status !== 'OK') throw new PrheraldError('usage', shape.reason, { fix: shape.fix })
  return answer
}

/** auth.test and the scopes, right away: a token Slack refuses is the answer's error, so it is asked for again. */
async function checkSlackToken(token: string, deps: AskSetupDeps): Promise<string> {
  if (token === '') throw new PrheraldError('usage', 'no Slack token given', { fix: 'paste the Bot User OAuth Token (xoxb-…), under OAuth & Permissions in your Slack app' })
  const result = await slackAuthCheck({ token, apiUrl: deps.slackApiUrl })
  if (result.status === 'FAIL') throw new PrheraldError('validation_failed', `the Slack token was not accepted: ${result.reason}`, { fix: result.fix })
  for (const line of formatChecks([result])) deps.print(line)
  return token
}

/** The channels the bot is in, to offer them by name. Without the list a channel ID still works. */
async function botChannels(deps: AskSetupDeps, token: string): Promise<BotChannel[]> {
  let channels: BotChannel[] = []
  try {
    channels = await listBotChannels({ token, apiUrl: deps.slackApiUrl })
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    deps.print(`note: the bot's channels could not be listed: ${error.message}${error.fix ? ` (${error.fix})` : ''}`)
  }
  if (channels.length === 0 && deps.interactive) deps.print('The bot is in no channel yet: in Slack, /invite @your-bot in the channel it should post to.')
  return channels
}

/** Offers the channels the bot is in, by name, or takes a typed ID (or name, which must be one of them). */
async function askChannel(ask: Asker, channels: readonly BotChannel[]): Promise<string> {
  const typed = () => ask.text('Channel ID (C…)', { flag: REQUIRED.channel })
  if (channels.length === 0) return typed()
  const other = '(another)'
  const picked = await ask.select('Which channel hears about the pull requests?', {
    flag: REQUIRED.channel,
    choices: [...channels.map((c) => ({ value: c.id, label: `#${c.name} (${c.id})` })), { value: other, label: 'another channel (type its ID)' }],
  })
  return picked === other ? typed() : picked
}
