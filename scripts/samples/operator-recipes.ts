import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { SAMPLE_GITHUB_TOKEN, startSampleSession } from './sample-session.ts'

export type Samples = Map<string, string>

const PUBLIC_URL = 'https://prherald.example.com'

/**
 * The operator commands' samples (docs/operators.md, docs/operations.md, docs/github.md), in the order an
 * operator meets them: a fresh directory, the checks without and with a GitHub token, the webhooks created,
 * the database migrated, the doctor again.
 */
export async function operatorSamples(): Promise<Samples> {
  const samples: Samples = new Map()
  const s = await startSampleSession()
  const token = { env: { GITHUB_TOKEN: SAMPLE_GITHUB_TOKEN }, shownEnv: 'GITHUB_TOKEN=…' }
  try {
    samples.set('doctor-empty', await s.run('prherald-doctor', { env: { PRHERALD_PUBLIC_URL: PUBLIC_URL } }))
    samples.set('config-list', await s.run('prherald-config list'))
    samples.set('usage-errors', await s.run('prherald-server --port 9999') + await s.run('prherald-config bogus'))
    samples.set('validate-no-token', await s.run('prherald-config validate'))
    samples.set('validate-first-token', await s.run('prherald-config validate', token))
    const withUrl = { env: { ...token.env, PRHERALD_PUBLIC_URL: PUBLIC_URL } }
    samples.set('create-webhook-github', await s.run('prherald-config create-webhook acme/api', withUrl))
    for (const repo of ['web', 'docs', 'monorepo', 'tools']) await s.run(`prherald-config create-webhook acme/${repo}`, withUrl)
    samples.set('validate-after-webhooks', `${await s.run('prherald-config validate acme/api', token)}\n${await s.run('prherald-config validate', token)}`)
    samples.set('migrate', await sequential(['status', 'up', 'status', 'up'].map((c) => () => s.run(`prherald-migrate ${c}`))))
    samples.set('doctor-repository', await s.run('prherald-doctor acme/api', { env: withUrl.env }))
  } finally {
    await s.close()
  }
  samples.set('create-webhook-bitbucket', await bitbucketSteps())
  samples.set('setup-github', await setup('--mentions U0123ABCD --public-url https://prherald.example.com --create-webhook'))
  // getting-started.md: the wizard's checks before the webhook exists (the tunnel's URL comes later).
  const checks = await setup('--mentions U0123ABCD')
  samples.set('setup-checks', `${checks.slice(checks.indexOf('\n', checks.indexOf('Checking the configuration')) + 1)}`)
  return samples
}

/** `prherald-setup --yes` for acme/api in an empty directory, with Slack and GitHub tokens. */
async function setup(options: string): Promise<string> {
  const s = await startSampleSession()
  try {
    rmSync(join(s.dir, 'config.yaml'))
    return await s.run(`prherald-setup --yes --provider github --channel '#pull-requests' --repository acme/api ${options}`, {
      env: { GITHUB_TOKEN: SAMPLE_GITHUB_TOKEN }, shownEnv: 'SLACK_BOT_TOKEN=xoxb-… GITHUB_TOKEN=github_pat_…',
    })
  } finally {
    await s.close()
  }
}

async function sequential(steps: Array<() => Promise<string>>): Promise<string> {
  let out = ''
  for (const step of steps) out += await step()
  return out
}

/** Bitbucket's printed webhook steps, from the example config switched to Bitbucket. */
async function bitbucketSteps(): Promise<string> {
  const example = readFileSync(join(packageRoot(), 'config.yaml'), 'utf8')
  const s = await startSampleSession()
  try {
    writeFileSync(join(s.dir, 'config.yaml'), example.replace(/^git_provider: github$/m, 'git_provider: bitbucket'))
    return await s.run('prherald-config create-webhook acme/api', { env: { BITBUCKET_WEBHOOK_SECRET: 'sample', PRHERALD_PUBLIC_URL: PUBLIC_URL } })
  } finally {
    await s.close()
  }
}
