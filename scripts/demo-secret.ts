import { loadEnvFile } from '../src/cli/load-env-file.ts'

/** The secret of `npm run demo` and `npm run dev` where neither the environment nor .env names one. */
export const DEMO_SECRET = 'demo-webhook-secret'

/**
 * The webhook secret `npm run demo`, `npm run dev` and `npm run demo:deliver` all use, so that a delivery signed
 * by one is accepted by the others: GITHUB_WEBHOOK_SECRET, else BITBUCKET_WEBHOOK_SECRET, from the environment
 * or the working directory's .env (npm runs every script in the clone, where prherald-setup may have written
 * one), else the demo's. `from` says which, for messages: the secret itself is never printed.
 */
export function demoSecret(env: NodeJS.ProcessEnv = process.env): { secret: string; from: string } {
  const file: NodeJS.ProcessEnv = {}
  loadEnvFile(file)
  for (const name of ['GITHUB_WEBHOOK_SECRET', 'BITBUCKET_WEBHOOK_SECRET']) {
    // The environment wins over .env, as for every prherald command (a script may have loaded .env into it already).
    const secret = env[name]?.trim() || file[name]?.trim()
    if (secret) return { secret, from: `${name} from ${file[name]?.trim() === secret ? '.env' : 'the environment'}` }
  }
  return { secret: DEMO_SECRET, from: `the demo's "${DEMO_SECRET}"` }
}
