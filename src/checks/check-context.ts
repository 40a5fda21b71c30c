import type { Env } from '../config/load-config.ts'
import type { HostSettings, Secrets, Settings } from '../config/settings.ts'
import type { HostAccess } from '../hosts/contract.ts'
import type { CheckContext } from './validate-entries.ts'
import { LOOKUP_SCOPE } from './slack-auth-check.ts'
import { personalScopes } from './personal-scopes.ts'
import { readSlackSigningSecret } from '../config/load-config.ts'

/** The secrets the checks use. Unlike the server, the checks run without a webhook secret. */
export interface CheckCredentials {
  slackToken: string | undefined
  /** SLACK_SIGNING_SECRET is set: the service serves /prherald, the events and the interactions. */
  interactiveRoutes: boolean
  /** Each configured host's API credentials, by host id. */
  git: Readonly<Record<string, HostAccess>>
}

/** The Slack half of the credentials, which never fails to read. */
export function slackCredentialsFromEnv(env: Env): Omit<CheckCredentials, 'git'> {
  return {
    // Used as the server uses it (untrimmed); only a blank value counts as unset.
    slackToken: env.SLACK_BOT_TOKEN?.trim() ? env.SLACK_BOT_TOKEN : undefined,
    interactiveRoutes: readSlackSigningSecret(env) !== undefined,
  }
}

export function credentialsFromEnv(env: Env, hosts: readonly Pick<HostSettings, 'id' | 'host'>[]): CheckCredentials {
  return { ...slackCredentialsFromEnv(env), git: Object.fromEntries(hosts.map((h) => [h.id, h.host.readAccess(env)])) }
}

export function credentialsFromSecrets(secrets: Secrets): CheckCredentials {
  return {
    slackToken: secrets.slackBotToken,
    interactiveRoutes: secrets.slackSigningSecret !== undefined,
    git: Object.fromEntries(Object.entries(secrets.hosts).map(([id, own]) => [id, own.gitAccess])),
  }
}

/** No credentials: what a host without any reads as. */
export const NO_ACCESS: HostAccess = { token: undefined, extra: {}, scheme: undefined }

/** One host's checks' clients, pointed at settings.api.slack and the host's API base, so that tests (and GitHub Enterprise) can redirect them. */
export function createCheckContext(settings: Settings, own: HostSettings, credentials: CheckCredentials): CheckContext {
  const { host } = own
  return {
    host,
    mappings: own.mappings,
    featureScopes: settings.lookupUsersByEmail && settings.hosts.some((h) => h.host.people.emailLookup) ? [LOOKUP_SCOPE] : [],
    personalScopes: personalScopes(settings, credentials.interactiveRoutes || settings.socketMode),
    slack: credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined,
    git: host.connect(credentials.git[own.id] ?? NO_ACCESS, own.apiUrl)?.webhooks,
  }
}
