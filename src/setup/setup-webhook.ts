import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import { hostOf } from '../hosts/registry.ts'
import { createWebhook } from './create-webhook.ts'
import { isPrheraldError } from '../errors.ts'
import type { Asker } from './asker.ts'
import { hasGitCredentials, type SetupAnswers } from './render-setup-files.ts'

export interface SetupWebhookDeps {
  answers: SetupAnswers
  settings: Settings
  /** The environment with what the wizard wrote, as create-webhook reads it. */
  env: Env
  envFile: string
  print: (line: string) => void
  /** GitHub: --create-webhook, or the answer of askCreateWebhook. */
  create: boolean | undefined
  /** The Bitbucket secret is printed for a person at a terminal; captured output only names where it is. */
  showSecret: boolean
}

/**
 * GitHub, with the public URL and a token known: whether to create the webhook, asked unless --create-webhook
 * or --yes decided. Asked with the other questions, before any file is written, so that Ctrl+C writes nothing.
 */
export async function askCreateWebhook(answers: SetupAnswers, create: boolean | undefined, ask: Asker): Promise<boolean | undefined> {
  const host = hostOf(answers.provider)
  if (create !== undefined || host.webhook.manualSteps || !answers.publicUrl || !hasGitCredentials(answers)) return create
  const target = `${answers.owner}/${answers.repo}`
  return ask.confirm(`Create the webhook on ${target} now, pointing at ${answers.publicUrl}/webhook/${host.id}?`, { flag: '--create-webhook', initial: true })
}

/**
 * The webhook step. GitHub: create it through create-webhook when the public URL and a token are known
 * and `create` says so. Bitbucket: the manual steps, URL and secret filled in.
 */
export async function setupWebhook(deps: SetupWebhookDeps): Promise<void> {
  const { answers, print } = deps
  const target = `${answers.owner}/${answers.repo}`
  print('')
  const host = hostOf(answers.provider)
  const manualSteps = host.webhook.manualSteps
  if (manualSteps) {
    const url = `${answers.publicUrl ?? 'https://<your prherald host>'}/webhook/${host.id}`
    for (const line of manualSteps(answers.owner, answers.repo, url, true)) print(line)
    print(deps.showSecret
      ? `Secret for step 5: ${answers.webhookSecret}`
      : `Secret for step 5: the value of ${host.variables.secret} in ${deps.envFile}`)
    if (!answers.publicUrl) print('Replace <your prherald host> with the public address of the server (PRHERALD_PUBLIC_URL).')
    return
  }
  if (!answers.publicUrl || !hasGitCredentials(answers)) {
    if (deps.create === true) print(`webhook not created: it needs --public-url and --git-token (${host.webhook.createAccess})`)
    print(`Create the webhook later with: prherald-config create-webhook ${target} (needs PRHERALD_PUBLIC_URL and ${host.variables.token} in ${deps.envFile})`)
    return
  }
  if (deps.create !== true) {
    print(`webhook not created; later: prherald-config create-webhook ${target}`)
    return
  }
  try {
    await createWebhook(deps.settings, deps.env, answers.owner, answers.repo, print, answers.provider)
  } catch (error) {
    // The files are written; the check below reports the missing webhook with its fix too.
    if (!isPrheraldError(error)) throw error
    // A host that cannot be reached, or refuses the token, fails the webhook check below the same way, with
    // its fix: said once there. A refusal of the creation itself (the check cannot see it) is said here.
    if (error.code === 'git_host' || error.code === 'git_host_auth') {
      print(`webhook not created for ${target}: the webhook check below says why`)
      return
    }
    print(`FAIL  webhook  ${target}  ${error.message}`)
    if (error.fix) print(`      fix: ${error.fix}`)
  }
}
