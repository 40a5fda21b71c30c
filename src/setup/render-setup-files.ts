import { stringify } from 'yaml'
import { hostOf } from '../hosts/registry.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { DEFAULTS, type DirectMessagesSetting } from '../config/settings.ts'
import type { TalkBackAnswers } from './ask-talk-back.ts'

export interface SetupAnswers {
  provider: Provider
  slackToken: string
  /**
   * SLACK_API_URL when it was set for setup (a stand-in Slack): written beside the token it belongs to, so
   * that prherald-server and prherald-smoke, started from another terminal, reach the same Slack.
   */
  slackApiUrl?: string | undefined
  /** SLACK_APP_TOKEN: given, slack.socket_mode is true. */
  slackAppToken?: string | undefined
  channel: string
  owner: string
  repo: string
  mentions: string[]
  /** notify.direct_messages. */
  directMessages: DirectMessagesSetting
  webhookSecret: string
  /** Where the git host delivers to, when known; create-webhook and prherald-smoke need it. */
  publicUrl: string | undefined
  /** The host's token variable (GITHUB_TOKEN, GITLAB_TOKEN, BITBUCKET_TOKEN), optional: the webhook check, path rules and create-webhook use it. */
  gitToken: string | undefined
  /** GITHUB_API_URL (…) of a self-managed install; undefined for the cloud host. */
  gitApiUrl?: string | undefined
  /** Credentials other than the token, by variable (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY_FILE). */
  gitVariables?: Readonly<Record<string, string>>
  /** slack.talk_back, when turned on, and its .env lines. */
  talkBack?: TalkBackAnswers | undefined
}

/** Whether the answers give the git host credentials of any kind. */
export const hasGitCredentials = (answers: SetupAnswers) => answers.gitToken !== undefined || Object.keys(answers.gitVariables ?? {}).length > 0

/** config.yaml for one repository. Pure; secrets never go in it. */
export function renderConfig(answers: SetupAnswers): string {
  const entry: Record<string, unknown> = { channel: answers.channel, mentions: answers.mentions }
  const doc = {
    git_provider: answers.provider,
    server: { listen: ':8080', log_format: 'pretty', log_level: 'info' },
    database: { url: 'file:./data/prherald.db' },
    // The default is left to be the default: written out, opt_in would read as a choice that nobody can opt in
    // to (no SLACK_SIGNING_SECRET yet), and every start and doctor run would warn about it (docs/notifications.md).
    ...(answers.directMessages === DEFAULTS.directMessages ? {} : { notify: { direct_messages: answers.directMessages } }),
    ...(answers.slackAppToken || answers.talkBack ? { slack: slackBlock(answers) } : {}),
    mappings: { [answers.owner]: { [answers.repo]: entry } },
  }
  const secret = hostOf(answers.provider).variables.secret
  return [
    '# prherald configuration, written by prherald-setup. Every key is described in docs/configuration.md.',
    `# The secrets (SLACK_BOT_TOKEN, ${secret}) are in .env in the directory prherald runs from, never here.`,
    ...(answers.directMessages === DEFAULTS.directMessages
      ? [`# notify.direct_messages is ${DEFAULTS.directMessages}, the default: people opt in with /prherald dm on or the home tab (docs/notifications.md).`]
      : []),
    stringify(doc),
  ].join('\n')
}

function slackBlock({ slackAppToken, talkBack }: SetupAnswers): Record<string, unknown> {
  return {
    ...(slackAppToken ? { socket_mode: true } : {}),
    ...(talkBack ? { talk_back: { thread_replies: talkBack.threadReplies, reviews: talkBack.reviews ? 'on' : 'off' } } : {}),
  }
}

/** talk-back's .env lines: the OAuth client (commented with its name when not given yet) and the token key. */
export function talkBackEnvLines(talkBack: TalkBackAnswers | undefined): string[] {
  if (!talkBack) return []
  return [
    ...talkBack.oauthVariables.map(([name, value]) => (value === undefined ? `# ${name}=   (docs/talk-back.md#turning-it-on)` : envLine(name, value))),
    ...(talkBack.tokenKey ? ['# Seals people\'s git-host tokens at rest: keep it, a lost key means everyone links again.', envLine('PRHERALD_TOKEN_KEY', talkBack.tokenKey)] : []),
  ]
}

/** One `KEY=value` line; quoted when the value holds anything a .env reader could take for syntax. */
export function envLine(name: string, value: string): string {
  return /^[\w.:/@+-]*$/.test(value) ? `${name}=${value}` : `${name}=${JSON.stringify(value)}`
}

/**
 * .env: the secrets and the public URL, read by every prherald command started in this directory, and the
 * config file's path when it is not ./config.yaml.
 */
export function renderEnvFile(answers: SetupAnswers, configFile?: string): string {
  const names = hostOf(answers.provider).variables
  const lines = [
    '# prherald secrets, written by prherald-setup. Readable by its owner only; never commit it.',
    ...(configFile ? [envLine('PRHERALD_CONFIG_FILE', configFile)] : []),
    envLine('SLACK_BOT_TOKEN', answers.slackToken),
    ...(answers.slackApiUrl ? [envLine('SLACK_API_URL', answers.slackApiUrl)] : []),
    ...(answers.slackAppToken ? [envLine('SLACK_APP_TOKEN', answers.slackAppToken)] : []),
    envLine(names.secret, answers.webhookSecret),
  ]
  if (answers.gitToken) lines.push(envLine(names.token, answers.gitToken))
  if (answers.gitApiUrl) lines.push(envLine(names.apiUrl, answers.gitApiUrl))
  for (const [name, value] of Object.entries(answers.gitVariables ?? {})) lines.push(envLine(name, value))
  if (answers.publicUrl) lines.push(envLine('PRHERALD_PUBLIC_URL', answers.publicUrl))
  lines.push(...talkBackEnvLines(answers.talkBack))
  return `${lines.join('\n')}\n`
}
