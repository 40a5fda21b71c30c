import type { Secrets, Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { SlackInbound } from './slack-inbound.ts'
import type { SlackSocket, SlackSocketDeps } from './slack-socket.ts'

/**
 * Socket Mode, when `slack.socket_mode` is true: called once the start-up gate opens (requests are acted on
 * only then), stopped first at shutdown. The client is imported here, so a server without socket mode never
 * loads it (start memory, docs/performance.md). Undefined when socket mode is off.
 */
export async function startSocketMode(deps: {
  settings: Pick<Settings, 'socketMode' | 'api'>
  secrets: Pick<Secrets, 'slackAppToken'>
  receive: SlackInbound | undefined
  logger: Logger
  /** The socket's backoff and timeouts, their defaults when absent; tests shorten them. */
  timeouts?: Pick<SlackSocketDeps, 'backoffMs' | 'helloMs' | 'liveness'>
}): Promise<SlackSocket | undefined> {
  const { settings, secrets, receive } = deps
  // The start-up validation refused to start without an app-level token; the pipeline exists whenever socket mode is on.
  if (!settings.socketMode || secrets.slackAppToken === undefined || !receive) return undefined
  const { startSlackSocket } = await import('./slack-socket.ts')
  return startSlackSocket({ ...deps.timeouts, appToken: secrets.slackAppToken, apiUrl: settings.api.slack, logger: deps.logger, receive })
}
