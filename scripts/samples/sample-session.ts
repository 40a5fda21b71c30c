import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from '../../src/config/load-config.ts'
import { packageRoot } from '../../src/package-root.ts'
import { startFakeGithub, type FakeGithub } from '../../test/helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../../test/helpers/fake-slack.ts'
import { spawnCli } from '../../test/helpers/run-cli-async.ts'
import type { CliName } from '../../test/helpers/spawn-prherald.ts'
import { normaliseSample, type SampleVariables } from './normalise-sample.ts'

/**
 * One fixed world for the docs' samples: a fresh directory holding the example config.yaml, a fake Slack
 * that knows the example's channels by name, and a fake GitHub where acme's repositories exist without
 * webhooks. Commands run there with a fixed environment (nothing of the caller's leaks in).
 */
export interface SampleSession {
  dir: string
  slack: FakeSlack
  github: FakeGithub
  env: Env
  variables: SampleVariables
  /** Runs `prherald-<name> args…` in `dir`; returns `$ <command>` and what it printed, normalised. */
  run(command: string, options?: { env?: Env; shownEnv?: string }): Promise<string>
  /** Normalises text printed by something else of this session (a server's log). */
  normalise(text: string): string
  close(): Promise<void>
}

export const SAMPLE_SLACK_TOKEN = 'xoxb-sample-token'
export const SAMPLE_GITHUB_TOKEN = 'github_pat_sample'
export const SAMPLE_WEBHOOK_SECRET = 'sample-webhook-secret'

/** The example config.yaml's channels, named as a workspace would name them. */
const CHANNELS: Record<string, string> = {
  C0123456789: 'eng-prs', C0234567890: 'api-team', C0345678901: 'monorepo', C0456789012: 'billing',
  C0567890123: 'web-team', C0678901234: 'docs', C0789012345: 'pull-requests',
}
const REPOSITORIES = ['api', 'web', 'docs', 'monorepo', 'tools']

/**
 * The directory as the docs show it: as long as the real one (mkdtemp adds six characters), so the columns
 * the commands align around a path stay aligned. Always under /tmp (Linux and macOS have it), never
 * TMPDIR, whose length varies.
 */
export const SHOWN_DIR = '/tmp/prherald-XXXXXX'

export async function startSampleSession(configFile = join(packageRoot(), 'config.yaml')): Promise<SampleSession> {
  const dir = mkdtempSync('/tmp/prherald-')
  copyFileSync(configFile, join(dir, 'config.yaml'))
  const slack = await startFakeSlack()
  for (const [id, name] of Object.entries(CHANNELS)) slack.channels.set(id, { name })
  const github = await startFakeGithub()
  github.token = SAMPLE_GITHUB_TOKEN
  github.repos.set('acme', REPOSITORIES)
  github.orgHooks.set('acme', [])
  for (const repo of REPOSITORIES) github.hooks.set(`acme/${repo}`, [])
  const env: Env = {
    TZ: 'UTC', SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, SLACK_BOT_TOKEN: SAMPLE_SLACK_TOKEN,
    GITHUB_WEBHOOK_SECRET: SAMPLE_WEBHOOK_SECRET,
  }
  const variables: SampleVariables = {
    literals: [[dir, SHOWN_DIR], [slack.url, 'https://slack.com/api/'], [github.url, 'https://api.github.com']],
  }
  const normalise = (text: string) => normaliseSample(text, variables)
  return {
    dir, slack, github, env, variables, normalise,
    async run(command, options = {}) {
      // Words, or '…'-quoted words as a shell reads them (`--channel '#pull-requests'`).
      const [bin = '', ...args] = (command.match(/'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^'(.*)'$/, '$1'))
      const name = bin.replace(/^prherald-/, '') as CliName
      const cli = spawnCli(name, args, { ...env, ...options.env }, dir)
      await cli.exited
      return normalise(`$ ${options.shownEnv ? `${options.shownEnv} ` : ''}${command}\n${cli.output().trimEnd()}\n`)
    },
    async close() {
      await Promise.all([slack.close(), github.close()])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
