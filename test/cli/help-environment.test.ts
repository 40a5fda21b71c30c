import { describe, expect, it } from 'vitest'
import { HOSTS } from '../../src/hosts/registry.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The Environment section of the commands that talk to Slack names SLACK_API_URL (how to point them at a
 * local stand-in), and each host's further variables say what they are: a GitHub App's variables replace
 * GITHUB_TOKEN, they do not say how it authenticates.
 */
type Command = 'server' | 'reconcile' | 'doctor' | 'config'
async function runHelp(name: Command): Promise<string> {
  const dir = makeTempDir()
  try {
    const result = await runCliAsync(name, ['--help'], testEnv(dir.path, 'github'), dir.path)
    expect(result.status).toBe(0)
    return result.stdout
  } finally {
    dir.remove()
  }
}
// Each command's --help is the same text for every test that reads it: one process per command, not per test.
const helps = new Map<Command, Promise<string>>()
const help = (name: Command) => helps.get(name) ?? helps.set(name, runHelp(name)).get(name)!

describe('--help, Environment', () => {
  it.each(['server', 'reconcile'] as const)('prherald-%s names SLACK_API_URL and its local stand-in', async (name) => {
    expect(await help(name)).toMatch(/^ {2}SLACK_API_URL +Slack Web API base \(default https:\/\/slack\.com\/api\/; a local stand-in: npm run fake-slack\)$/m)
  })

  it.each(['server', 'reconcile', 'doctor', 'config'] as const)('prherald-%s says what each host\'s further variable is', async (name) => {
    const text = await help(name)
    expect(text).not.toMatch(/GITHUB_APP_\w+ .*how GITHUB_TOKEN authenticates/)
    expect(text).toMatch(/^ {2}GITHUB_APP_ID .*a GitHub App instead of GITHUB_TOKEN/m)
    for (const host of HOSTS.values()) {
      for (const variable of host.variables.extra) {
        expect(text).toContain(host.variables.extraHelp[variable])
        expect(host.variables.extraHelp[variable], variable).toBeTruthy()
      }
    }
  })
})
