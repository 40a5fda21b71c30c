import { readGitHostAccess, type Env } from '../config/load-config.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { createWebhookApi } from '../hosts/webhooks.ts'
import type { CheckContext } from './validate-entries.ts'
import { LOOKUP_SCOPE } from './slack-auth-check.ts'

/** The secrets the checks use. Unlike the server, the checks run without a webhook secret. */
export interface CheckCredentials {
  slackToken: string | undefined
  gitToken: string | undefined
  bitbucketAuthEmail: string | undefined
}

export function credentialsFromEnv(env: Env, provider: Provider): CheckCredentials {
  return {
    // Used as the server uses it (untrimmed); only a blank value counts as unset.
    slackToken: env.SLACK_BOT_TOKEN?.trim() ? env.SLACK_BOT_TOKEN : undefined,
    ...readGitHostAccess(env, provider),
  }
}

export function credentialsFromSecrets(secrets: Secrets): CheckCredentials {
  return { slackToken: secrets.slackBotToken, gitToken: secrets.gitToken, bitbucketAuthEmail: secrets.bitbucketAuthEmail }
}

/** The checks' clients, all pointed at settings.api.* so that tests (and GitHub Enterprise) can redirect them. */
export function createCheckContext(settings: Settings, credentials: CheckCredentials): CheckContext {
  const provider = settings.gitProvider
  return {
    provider,
    mappings: settings.mappings,
    featureScopes: settings.lookupUsersByEmail && provider === 'github' ? [LOOKUP_SCOPE] : [],
    slack: credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined,
    git: credentials.gitToken
      ? createWebhookApi({ provider, apiUrl: settings.api[provider], token: credentials.gitToken, bitbucketAuthEmail: credentials.bitbucketAuthEmail })
      : undefined,
  }
}
