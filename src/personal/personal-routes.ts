import type { Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Store } from '../store/store.ts'
import type { Personal } from './create-personal.ts'
import { createPublishHome, type PublishHome } from './publish-home.ts'
import { createCommandRunner, type RunCommand } from './run-command.ts'
import { createSlackIdentity, type CheckSlackIdentity } from './slack-identity.ts'

/** What `/prherald` and the Events API need, built from the worker's personal side. */
export function personalRoutes(deps: {
  settings: Pick<Settings, 'directMessages' | 'users' | 'teams' | 'api'>
  signingSecret: string
  personal: Personal
  store: Store
  pacer: SlackPacer
  logger: Logger
}): { signingSecret: string; run: RunCommand; identity: CheckSlackIdentity; publishHome: PublishHome; slackApiUrl: string } {
  const { settings, personal, store } = deps
  const people = { users: settings.users, teams: settings.teams }
  const shared = { store, settings: settings.directMessages, people, directory: personal.people, now: personal.now }
  return {
    signingSecret: deps.signingSecret,
    run: createCommandRunner(shared),
    identity: createSlackIdentity(personal.slackDirectory),
    publishHome: createPublishHome({ ...shared, slack: personal.slackDirectory, pacer: deps.pacer, logger: deps.logger }),
    slackApiUrl: settings.api.slack,
  }
}
