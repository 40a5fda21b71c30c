import type { Env } from '../config/load-config.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { HostAccess } from '../hosts/contract.ts'
import { hostOf } from '../hosts/registry.ts'
import type { CheckContext } from './validate-entries.ts'
import { LOOKUP_SCOPE } from './slack-auth-check.ts'
import { personalScopes } from './personal-scopes.ts'
import { readSlackSigningSecret } from '../config/load-config.ts'

/** The secrets the checks use. Unlike the server, the checks run without a webhook secret. */
export interface CheckCredentials {
  slackToken: string | undefined
  /** SLACK_SIGNING_SECRET is set: the service serves /prherald, the events and the interactions. */
  interactiveRoutes: boolean
  git: HostAccess
}

/** The Slack half of the credentials, which never fails to read. */
export function slackCredentialsFromEnv(env: Env): Omit<CheckCredentials, 'git'> {
  return {
    // Used as the server uses it (untrimmed); only a blank value counts as unset.
    slackToken: env.SLACK_BOT_TOKEN?.trim() ? env.SLACK_BOT_TOKEN : undefined,
    interactiveRoutes: readSlackSigningSecret(env) !== undefined,
  }
}

export function credentialsFromEnv(env: Env, provider: Provider): CheckCredentials {
  return { ...slackCredentialsFromEnv(env), git: hostOf(provider).readAccess(env) }
}

export function credentialsFromSecrets(secrets: Secrets): CheckCredentials {
  return { slackToken: secrets.slackBotToken, interactiveRoutes: secrets.slackSigningSecret !== undefined, git: secrets.gitAccess }
}

/** The checks' clients, all pointed at settings.api.* so that tests (and GitHub Enterprise) can redirect them. */
export function createCheckContext(settings: Settings, credentials: CheckCredentials): CheckContext {
  const provider = settings.gitProvider
  const host = hostOf(provider)
  return {
    provider,
    mappings: settings.mappings,
    featureScopes: settings.lookupUsersByEmail && host.people.emailLookup ? [LOOKUP_SCOPE] : [],
    personalScopes: personalScopes(settings, credentials.interactiveRoutes || settings.socketMode),
    slack: credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined,
    git: host.connect(credentials.git, settings.api.git)?.webhooks,
  }
}
