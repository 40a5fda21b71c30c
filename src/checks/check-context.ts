import type { ConnectedHost } from '../config/connect-hosts.ts'
import { readSlackSigningSecret, type Env } from '../config/load-config.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { CheckContext } from './validate-entries.ts'
import { LOOKUP_SCOPE } from './slack-auth-check.ts'
import { personalScopes } from './personal-scopes.ts'
import { reviewLoopScopes } from './review-loop-check.ts'

/** The Slack secrets the checks use; each host's API credentials come with its ConnectedHost. */
export interface CheckCredentials {
  slackToken: string | undefined
  /** SLACK_SIGNING_SECRET is set: the service serves /prherald, the events and the interactions. */
  interactiveRoutes: boolean
}

/** The Slack credentials from the environment, which never fail to read. */
export function credentialsFromEnv(env: Env): CheckCredentials {
  return {
    // Used as the server uses it (untrimmed); only a blank value counts as unset.
    slackToken: env.SLACK_BOT_TOKEN?.trim() ? env.SLACK_BOT_TOKEN : undefined,
    interactiveRoutes: readSlackSigningSecret(env) !== undefined,
  }
}

export function credentialsFromSecrets(secrets: Secrets): CheckCredentials {
  return { slackToken: secrets.slackBotToken, interactiveRoutes: secrets.slackSigningSecret !== undefined }
}

/** One host's checks' clients, pointed at settings.api.slack and the host's API client from connectHosts. */
export function createCheckContext(settings: Settings, own: ConnectedHost, credentials: CheckCredentials): CheckContext {
  return {
    host: own.host,
    mappings: own.mappings,
    featureScopes: [...(settings.lookupUsersByEmail && settings.hosts.some((h) => h.host.people.emailLookup) ? [LOOKUP_SCOPE] : []), ...reviewLoopScopes(settings)],
    personalScopes: personalScopes(settings, credentials.interactiveRoutes || settings.socketMode),
    slack: credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined,
    git: own.api?.webhooks,
    assign: { api: own.api, teams: own.teams },
  }
}
