import type { Env } from '../config/load-config.ts'
import { redactUrl } from '../log/redact-url.ts'
import type { Settings } from '../config/settings.ts'
import { connectHostsFromEnv } from '../config/connect-hosts.ts'
import { PrheraldError } from '../errors.ts'
import { pickHost } from '../config/pick-host.ts'
import { hasCredentials } from '../hosts/contract.ts'
import { publicUrlProblem } from '../config/public-url.ts'

const PUBLIC_URL_PLACEHOLDER = '<PRHERALD_PUBLIC_URL>'

function required(env: Env, name: string, what: string): string {
  const value = env[name]
  if (value === undefined || value.trim() === '') {
    throw new PrheraldError('env_missing', `${name} is not set: ${what}`, { fix: `set ${name} in the environment or in .env, then run the command again` })
  }
  return value
}

/**
 * `prherald-config create-webhook <owner>/<repo>`: where the host's API can, creates the webhook (or updates
 * the one with the same URL), which needs PRHERALD_PUBLIC_URL and the host's token; otherwise prints the
 * manual steps, with a placeholder for the URL when PRHERALD_PUBLIC_URL is not set. Prints lines through
 * `print`, never a secret.
 */
export async function createWebhook(
  settings: Settings, env: Env, owner: string, repo: string, print: (line: string) => void, provider?: string,
): Promise<void> {
  const own = pickHost(settings.hosts, provider)
  const { host } = own
  const { secret: secretVariable, token: tokenVariable } = host.variables
  const manualSteps = host.webhook.manualSteps
  if (manualSteps) {
    // Only printing steps: without the public URL they are still worth reading, with a placeholder to replace.
    if (!settings.publicUrl) {
      print(`PRHERALD_PUBLIC_URL is not set: replace ${PUBLIC_URL_PLACEHOLDER} below with prherald's public base URL, e.g. https://prherald.example.com`)
      print('')
    }
    const url = `${settings.publicUrl ?? PUBLIC_URL_PLACEHOLDER}/webhook/${host.id}`
    const shown = settings.publicUrl ? redactUrl(url) : url
    // The operator pastes the URL by hand: shown with its user-info hidden, and said so, never the password itself.
    for (const line of manualSteps(owner, repo, shown, (env[secretVariable] ?? '').trim() !== '')) {
      print(line)
      if (shown !== url && line.includes(shown)) print('    (*** stands for the user and password in PRHERALD_PUBLIC_URL; paste the URL with them)')
    }
    return
  }
  const publicUrl = settings.publicUrl ?? required(env, 'PRHERALD_PUBLIC_URL', 'it is the public base URL the git host delivers to, e.g. https://prherald.example.com')
  const problem = publicUrlProblem(publicUrl)
  if (problem) throw new PrheraldError('usage', `PRHERALD_PUBLIC_URL ${redactUrl(publicUrl)} ${problem}`, { fix: 'set PRHERALD_PUBLIC_URL to the https:// URL the git host delivers to' })
  const url = `${publicUrl}/webhook/${host.id}`
  const shown = redactUrl(url)
  const connected = connectHostsFromEnv([own], env).get(own.id)!
  // Any credentials will do (a token, or a GitHub App); the token is named when there are none.
  if (!hasCredentials(connected.gitAccess)) required(env, tokenVariable, `creating a webhook needs ${host.webhook.createAccess}`)
  const secret = required(env, secretVariable, 'the webhook signs each delivery with it, and prherald verifies with the same value')
  const upsert = connected.api?.upsertWebhook
  if (!upsert) throw new PrheraldError('env_missing', `${host.words.name} webhooks cannot be created with these credentials`, { fix: `set ${tokenVariable}` })
  const { action, id } = await upsert({ owner, repo, url, secret })
  print(`${action} webhook ${id} on ${owner}/${repo}`)
  print(`  url:          ${shown}`)
  print('  content type: json')
  print(`  secret:       ${secretVariable} (set)`)
  print(`  events:       ${[...host.webhook.required, ...host.webhook.optional].join(', ')}`)
  print('  active:       yes')
  print(`check it with: prherald-config validate ${owner}/${repo}`)
}
