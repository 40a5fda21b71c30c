import { cac } from 'cac'
import { pickHost } from '../config/pick-host.ts'
import type { HostSettings, Settings } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { applyReactionTier } from '../config/reactions.ts'
import { listRoutes, resolveRoute, type Route } from '../routing/resolve-route.ts'
import { runSmoke } from '../smoke/run-smoke.ts'
import { commandSettings } from './load-env-file.ts'
import { parseRepository } from '../config/parse-repository.ts'
import { runCommands } from './run-commands.ts'
import { environmentHelp, hostVariableLines } from './host-variable-lines.ts'

interface Options {
  url?: unknown
  repository?: unknown
  provider?: unknown
  reactions?: boolean
  timeout?: unknown
  help?: boolean
}

/**
 * The repository to test, the one named or the first mapping entry (a `"*"` entry with a made-up name), its
 * route, and the channel to watch: the first the repository posts in (prherald-smoke deletes its message in each).
 */
function chooseRepository(settings: Settings, own: HostSettings, named: string | undefined): { owner: string; repo: string; channel: string; channels: string[]; route: Route } {
  const pick = (owner: string, repo: string, route: Route) => {
    const channels = route.targets.map((t) => t.channel)
    if (!channels[0]) throw new PrheraldError('config_invalid', `${owner}/${repo} posts in no channel`, { fix: 'give its mapping entry a channel' })
    return { owner, repo, channel: channels[0], channels, route }
  }
  if (named !== undefined) {
    const { owner, repo } = parseRepository(named)
    const route = resolveRoute(own.mappings, owner, repo)
    if (!route) throw new PrheraldError('usage', `${owner}/${repo} has no mapping entry in ${settings.configFile}`, { fix: 'name a mapped repository (prherald-config list shows them)' })
    return pick(owner, repo, route)
  }
  const first = listRoutes(own.mappings)[0]
  if (!first) throw new PrheraldError('config_invalid', `${settings.configFile} has no mapping entries`, { fix: 'add one (prherald-setup writes one), then run prherald-smoke again' })
  return pick(first.owner, first.repo === '*' ? 'prherald-smoke' : first.repo, first)
}

/** The emoji --reactions waits for: the repository's, after the mapping tiers over the global ones. */
function expectedReactions(settings: Settings, route: Route): { approved: string; merged: string } {
  const reactions = applyReactionTier(settings.reactions, route.reactions)
  if (!reactions.enabled) {
    throw new PrheraldError('usage', `reactions are off for ${route.owner}/${route.repo} (slack.reactions.enabled: false)`, { fix: 'run prherald-smoke without --reactions' })
  }
  return { approved: reactions.names.approved, merged: reactions.names.merged }
}

function required(name: string, what: string): string {
  const value = process.env[name]
  if (!value?.trim()) throw new PrheraldError('env_missing', `${name} is not set: ${what}`, { fix: `set ${name} in the environment or in .env (the server's value)` })
  return value
}

async function main(options: Options): Promise<boolean> {
  const settings = commandSettings()
  const url = (options.url === undefined ? settings.publicUrl : String(options.url))?.replace(/\/+$/, '')
  if (!url) throw new PrheraldError('env_missing', 'no URL to test', { fix: 'pass --url https://… or set PRHERALD_PUBLIC_URL to the public base URL of the service' })
  const seconds = options.timeout === undefined ? 30 : Number(options.timeout)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new PrheraldError('usage', `--timeout ${String(options.timeout)} is not a number of seconds`, { fix: 'e.g. --timeout 60' })
  const own = pickHost(settings.hosts, options.provider === undefined ? undefined : String(options.provider))
  const { route, ...target } = chooseRepository(settings, own, options.repository === undefined ? undefined : String(options.repository))
  const provider = own.id
  return runSmoke({
    url, provider, ...target,
    webhookSecret: required(own.host.variables.secret, 'the smoke test signs its deliveries with it'),
    slack: { token: required('SLACK_BOT_TOKEN', 'the smoke test reads the channel with it'), apiUrl: settings.api.slack },
    reactions: options.reactions === true ? expectedReactions(settings, route) : undefined,
    timeoutMs: seconds * 1000,
    intervalMs: 500,
    print: (line) => console.log(line),
  })
}

const cli = cac('prherald-smoke')
cli.usage('[--url <url>] [--repository <owner/repo>] [--reactions]')
cli.option('--url <url>', 'Public base URL of the service (default: PRHERALD_PUBLIC_URL)')
cli.option('--repository <owner/repo>', 'A mapped repository to announce the test pull request in (default: the first mapping entry)')
cli.option('--reactions', 'Also send an approval and a merge, and check their reactions')
cli.option('--provider <host>', 'The host whose deliveries to send, when several are configured (github, gitlab, bitbucket)')
cli.option('--timeout <seconds>', 'How long to wait for each Slack change (default: 30)')
cli.example('prherald-smoke --url https://prherald.example.com --reactions')
environmentHelp(cli, [
  '  PRHERALD_CONFIG_FILE   config file (default ./config.yaml): git_provider, the mapped channel, the reactions',
  '  PRHERALD_PUBLIC_URL    default of --url',
  '  SLACK_BOT_TOKEN        reads the channel (conversations.history; the channels:history scope)',
  ...hostVariableLines('secret', (host) => `${host.words.name}: authenticates the deliveries, as ${host.words.name} does`),
  '  SLACK_API_URL          Slack Web API base (default https://slack.com/api/)',
])

// Strict like every prherald CLI: --version, and an unknown option or argument is a usage error (exit 2).
await runCommands(cli, {
  maxArgs: 0,
  run: async (_args, options) => {
    if (!(await main(options as Options))) process.exitCode = 1
  },
})
