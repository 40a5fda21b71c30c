import type { Env } from '../config/load-config.ts'
import { redactUrl } from '../config/redact-url.ts'
import type { Settings } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { createGithubClient } from '../hosts/github/client.ts'
import { OPTIONAL_EVENTS, REQUIRED_EVENTS, upsertGithubWebhook } from '../hosts/webhooks.ts'
import { bitbucketWebhookSteps } from '../hosts/bitbucket/webhook-steps.ts'

const PUBLIC_URL_PLACEHOLDER = '<PRHERALD_PUBLIC_URL>'

function required(env: Env, name: string, what: string): string {
  const value = env[name]
  if (value === undefined || value.trim() === '') {
    throw new PrheraldError('env_missing', `${name} is not set: ${what}`, { fix: `set ${name} in the environment or in .env, then run the command again` })
  }
  return value
}

/**
 * `prherald-config create-webhook <owner>/<repo>`: on GitHub, creates the webhook (or updates the one with
 * the same URL), which needs PRHERALD_PUBLIC_URL; on Bitbucket, prints the manual steps, with a placeholder
 * for the URL when PRHERALD_PUBLIC_URL is not set. Prints lines through `print`, never a secret.
 */
export async function createWebhook(settings: Settings, env: Env, owner: string, repo: string, print: (line: string) => void): Promise<void> {
  if (settings.gitProvider === 'bitbucket') {
    // Only printing steps: without the public URL they are still worth reading, with a placeholder to replace.
    if (!settings.publicUrl) {
      print(`PRHERALD_PUBLIC_URL is not set: replace ${PUBLIC_URL_PLACEHOLDER} below with prherald's public base URL, e.g. https://prherald.example.com`)
      print('')
    }
    const url = `${settings.publicUrl ?? PUBLIC_URL_PLACEHOLDER}/webhook/bitbucket`
    const shown = settings.publicUrl ? redactUrl(url) : url
    // The operator pastes the URL by hand: shown with its user-info hidden, and said so, never the password itself.
    for (const line of bitbucketWebhookSteps(owner, repo, shown, (env.BITBUCKET_WEBHOOK_SECRET ?? '').trim() !== '')) {
      print(line)
      if (shown !== url && line.includes(shown)) print('    (*** stands for the user and password in PRHERALD_PUBLIC_URL; paste the URL with them)')
    }
    return
  }
  if (!settings.publicUrl) required(env, 'PRHERALD_PUBLIC_URL', 'it is the public base URL the git host delivers to, e.g. https://prherald.example.com')
  const url = `${settings.publicUrl}/webhook/github`
  const shown = redactUrl(url)
  const token = required(env, 'GITHUB_TOKEN', 'creating a webhook needs a token with admin rights on the repository hooks ("Webhooks: read and write")')
  const secret = required(env, 'GITHUB_WEBHOOK_SECRET', 'the webhook signs each delivery with it, and prherald verifies with the same value')
  const octokit = createGithubClient({ baseUrl: settings.api.github, token })
  const { action, id } = await upsertGithubWebhook(octokit, { owner, repo, url, secret })
  print(`${action} webhook ${id} on ${owner}/${repo}`)
  print(`  url:          ${shown}`)
  print('  content type: json')
  print('  secret:       GITHUB_WEBHOOK_SECRET (set)')
  print(`  events:       ${[...REQUIRED_EVENTS.github, ...OPTIONAL_EVENTS.github].join(', ')}`)
  print('  active:       yes')
  print(`check it with: prherald-config validate ${owner}/${repo}`)
}
