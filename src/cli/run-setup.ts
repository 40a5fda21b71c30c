import { cac } from 'cac'
import { runSetup } from '../setup/run-setup.ts'
import { DIRECT_MESSAGES_FLAG } from '../setup/ask-direct-messages.ts'
import { GIT_API_URL_FLAG } from '../setup/ask-api-url.ts'
import { TALK_BACK_FLAGS } from '../setup/ask-talk-back.ts'
import { runCommands } from './run-commands.ts'
import { HOST_IDS, HOSTS } from '../hosts/registry.ts'
import { apiUrlLines, environmentHelp, hostVariableLines, hostVariableNames } from './host-variable-lines.ts'

interface Options {
  provider?: unknown
  slackToken?: unknown
  slackAppToken?: unknown
  channel?: unknown
  repository?: unknown
  mentions?: unknown
  directMessages?: unknown
  publicUrl?: unknown
  gitToken?: unknown
  gitApiUrl?: unknown
  githubAppId?: unknown
  githubAppPrivateKeyFile?: unknown
  talkBackReplies?: unknown
  talkBackReviews?: unknown
  oauthClientId?: unknown
  oauthClientSecret?: unknown
  createWebhook?: boolean
  config?: unknown
  yes?: boolean
  force?: boolean
}

// cac reads `--channel 123` as a number; every answer is text.
const text = (value: unknown) => (value === undefined || value === true ? undefined : String(value))

const definedOnly = (values: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined))
// Hosts whose webhooks prherald creates; the others print the steps instead.
const WEBHOOK_HOSTS = [...HOSTS.values()].filter((host) => !host.webhook.manualSteps).map((host) => host.words.name).join(', ')

const cli = cac('prherald-setup')
cli.usage('[--yes] [options]')
cli.option(`--provider <${HOST_IDS.join('|')}>`, 'The git host that sends the webhooks')
cli.option('--slack-token <token>', 'Slack bot token, xoxb-… (default: SLACK_BOT_TOKEN; the variable keeps it out of shell history)')
cli.option('--slack-app-token <token>', 'Slack app-level token, xapp-…, for Socket Mode: no public URL for Slack (default: SLACK_APP_TOKEN); optional')
cli.option('--channel <id-or-name>', 'Channel ID, or the name of a channel the bot is in (#name)')
cli.option('--repository <owner/repo>', 'The repository to announce (Bitbucket: workspace/repository-slug)')
cli.option('--mentions <list>', 'Who is pinged on the first announcement: member IDs U…, group IDs S…, here, channel')
cli.option(`${DIRECT_MESSAGES_FLAG} <off|opt_in|on>`, 'Direct messages to people about their pull requests: off, opt_in (each turns them on; the default) or on')
cli.option('--public-url <url>', 'Public base URL the git host delivers to (default: PRHERALD_PUBLIC_URL)')
cli.option('--git-token <token>', `${hostVariableNames('token')}, optional (default: the variable)`)
const SELF_MANAGED = [...HOSTS.values()].flatMap((host) => (host.selfManaged ? [`${host.selfManaged.name}: ${host.selfManaged.apiUrl}`] : [])).join(', ')
cli.option(`${GIT_API_URL_FLAG} <url>`, `${hostVariableNames('apiUrl')} of a self-managed install, written to .env (${SELF_MANAGED})`)
cli.option('--github-app-id <id>', 'GitHub: authenticate as this GitHub App instead of a token (with --github-app-private-key-file)')
cli.option('--github-app-private-key-file <path>', 'GitHub: the app\'s .pem private key file; .env gets its path, never its content')
cli.option(`${TALK_BACK_FLAGS.replies} <off|linked|everyone>`, 'slack.talk_back.thread_replies: thread replies become pull-request comments (docs/talk-back.md); asked unless --yes')
cli.option(`${TALK_BACK_FLAGS.reviews} <on|off>`, 'slack.talk_back.reviews: approve, request changes and comment from the message')
cli.option(`${TALK_BACK_FLAGS.clientId} <id>`, 'With talk-back: the host\'s OAuth client id (default: <HOST>_OAUTH_CLIENT_ID); optional, .env names it')
cli.option(`${TALK_BACK_FLAGS.clientSecret} <secret>`, 'With talk-back: the host\'s OAuth client secret (default: <HOST>_OAUTH_CLIENT_SECRET)')
cli.option('--create-webhook', `${WEBHOOK_HOSTS}: create the webhook (needs --public-url and --git-token); asked unless --yes`)
cli.option('--config <file>', 'Where to write the config (default: ./config.yaml); .env always goes in the working directory')
cli.option('--yes', 'Ask nothing: answers come from the flags, and a missing one is an error')
cli.option('--force', 'Overwrite an existing config.yaml or .env without asking')
cli.example('prherald-setup')
cli.example('SLACK_BOT_TOKEN=xoxb-… prherald-setup --yes --provider github --channel C0123456789 --repository acme/api')
environmentHelp(cli, [
  '  SLACK_BOT_TOKEN        default of --slack-token',
  '  SLACK_APP_TOKEN        default of --slack-app-token',
  ...hostVariableLines('token', () => 'default of --git-token'),
  '  PRHERALD_PUBLIC_URL    default of --public-url',
  '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/)',
  ...apiUrlLines(),
])

// Strict like every prherald CLI: --version, and an unknown option or argument is a usage error (exit 2).
await runCommands(cli, {
  maxArgs: 0,
  run: async (_args, parsed) => {
    const options = parsed as Options
    process.exitCode = await runSetup({
      provider: text(options.provider), slackToken: text(options.slackToken), slackAppToken: text(options.slackAppToken), channel: text(options.channel),
      repository: text(options.repository), mentions: text(options.mentions), directMessages: text(options.directMessages), publicUrl: text(options.publicUrl), gitToken: text(options.gitToken), gitApiUrl: text(options.gitApiUrl),
      gitVariables: definedOnly({ GITHUB_APP_ID: text(options.githubAppId), GITHUB_APP_PRIVATE_KEY_FILE: text(options.githubAppPrivateKeyFile) }),
      talkBackReplies: text(options.talkBackReplies), talkBackReviews: text(options.talkBackReviews),
      oauthClientId: text(options.oauthClientId), oauthClientSecret: text(options.oauthClientSecret),
      createWebhook: options.createWebhook, config: text(options.config), yes: options.yes === true, force: options.force === true,
    }, {
      cwd: process.cwd(),
      env: process.env,
      terminal: process.stdin.isTTY ? { input: process.stdin, output: process.stdout } : undefined,
      outputIsTerminal: process.stdout.isTTY === true,
      print: (line) => console.log(line),
      printError: (t) => process.stderr.write(t),
    })
  },
})
