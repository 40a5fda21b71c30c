import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseEnv } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { freePort } from '../helpers/free-port.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { linkCommands } from '../helpers/linked-commands.ts'
import { unsupportedNode } from '../helpers/unsupported-node.ts'
import { unsupportedNodeReason } from '../../src/cli/require-supported-node.ts'
import { markedShellBlocks, substitute } from '../helpers/markdown-blocks.ts'
import { runShellScript, startShellScript, type ShellScript } from '../helpers/shell-script.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The quick starts of the README and docs/getting-started.md (step 8), run as a new user would: the commands
 * are the documents' own ```sh quick-start=… blocks (test/helpers/markdown-blocks.ts), in a fresh $HOME that holds nothing but what they create. The
 * test gives only what a user's environment has: the prherald-* commands on PATH (symlinks to dist/, as
 * `npm link` makes them), a `node` on PATH older than prherald supports (Node 20, which the tests bring:
 * test/helpers/unsupported-node.ts), so the commands must find the Node `npm ci` installed by themselves, the
 * Slack and git-host API URLs pointing at the fakes, and PRHERALD_LISTEN (a documented variable) set to a
 * free port, because the docs' :8080 may be taken on the machine running the tests.
 */
const SLACK_TOKEN = 'xoxb-quick-start-5e2a'
const GITHUB_TOKEN = 'github_pat_quick_start_91c4'
const CHANNEL = 'C0QUICK0001'

let dir: ReturnType<typeof makeTempDir> | undefined
let slack: FakeSlack | undefined
let github: FakeGithub | undefined
let bitbucket: FakeBitbucket | undefined
let terminal: ShellScript | undefined

afterEach(async () => {
  await terminal?.stop('SIGKILL')
  await Promise.all([slack?.close(), github?.close(), bitbucket?.close()])
  dir?.remove()
  dir = slack = github = bitbucket = terminal = undefined
})

/**
 * The documented commands, with the placeholders a user fills in replaced, split where the docs switch to a
 * second terminal: the first terminal's part ends with the command that keeps running, `prherald-server`.
 */
function documentedTerminals(doc: Doc, publicUrl: string): [first: string, second: string] {
  const blocks = markedShellBlocks(doc.file, 'quick-start', doc.name)
  const script = substitute(blocks.join(''), [
    // npm link puts the commands on PATH; the test's PATH already has them (linkCommands), built from this checkout.
    ...(doc.file === 'README.md' ? [['npm ci && npm link', 'true'] as const] : []),
    ['xoxb-…', SLACK_TOKEN],
    ['https://prherald.example.com', publicUrl],
    ...(doc.provider === 'github' ? [['github_pat_…', GITHUB_TOKEN] as const] : []),
  ])
  const lines = script.split('\n')
  const server = lines.findIndex((line) => /^prherald-server(\s|$)/.test(line))
  expect(server, `a line starting prherald-server in:\n${script}`).toBeGreaterThan(0)
  return [lines.slice(0, server + 1).join('\n'), lines.slice(server + 1).join('\n')]
}

async function untilListening(server: ShellScript, url: string): Promise<void> {
  let exited = false
  void server.exited.then(() => { exited = true })
  await waitFor(`GET ${url}/healthz to answer 200; the terminal so far:\n${server.output()}`, async () => {
    if (exited) throw new Error(`prherald-server stopped; the terminal:\n${server.output()}`)
    return fetch(`${url}/healthz`).then((r) => r.ok, () => false)
  }, 60_000)
}

function payload(provider: Provider): Record<string, unknown> {
  if (provider === 'bitbucket') {
    const body = bitbucketFixture('created')
    return JSON.parse(JSON.stringify(body).replaceAll('"acme/payments-api"', '"acme/api"')) as Record<string, unknown>
  }
  const body = githubExample('pull_request', 'opened')
  const repository = body.repository as { name: string; full_name: string; owner: { login: string } }
  Object.assign(repository, { name: 'api', full_name: 'acme/api', owner: { ...repository.owner, login: 'acme' } })
  return body
}

/** The blocks marked `quick-start=<name>` in `file`, and the git host they set up. */
interface Doc { file: string; name: string; provider: Provider }
const DOCS: Doc[] = [
  { file: 'README.md', name: 'github', provider: 'github' },
  { file: 'README.md', name: 'bitbucket', provider: 'bitbucket' },
  { file: 'docs/getting-started.md', name: 'getting-started', provider: 'github' },
]

describe('the documented quick starts, in a fresh directory', () => {
  it.each(DOCS)('$file $name: setup --yes, then prherald-server with nothing else, prherald-smoke, and a signed delivery reaches the channel', async (doc) => {
    const { provider } = doc
    dir = makeTempDir('prherald-quick-start-')
    const home = join(dir.path, 'home')
    const bin = join(dir.path, 'bin')
    mkdirSync(home)
    mkdirSync(bin)
    expect(linkCommands(bin)).toEqual(expect.arrayContaining(['prherald-setup', 'prherald-server', 'prherald-smoke']))
    slack = await startFakeSlack()
    slack.channels.set(CHANNEL, { name: 'pull-requests' })
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const env: Record<string, string> = {
      HOME: home,
      PATH: [bin, dirname(unsupportedNode()), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      SLACK_API_URL: slack.url,
      PRHERALD_LISTEN: `127.0.0.1:${port}`,
    }
    if (provider === 'github') {
      github = await startFakeGithub()
      github.token = GITHUB_TOKEN
      github.hooks.set('acme/api', [])
      env.GITHUB_API_URL = github.url
    } else {
      bitbucket = await startFakeBitbucket()
      env.BITBUCKET_API_URL = bitbucket.url
    }
    const [first, second] = documentedTerminals(doc, url)
    const shellNode = spawnSync('sh', ['-c', 'node -p process.versions.node'], { env, encoding: 'utf8' }).stdout.trim()
    expect(unsupportedNodeReason(shellNode), `the shell's node is ${shellNode}`).toBeDefined()

    terminal = startShellScript(first, env, home)
    await untilListening(terminal, url)
    const workdir = join(home, 'prherald-acme')
    // Only what the steps made: the setup's files, and the database the server created with its directory.
    expect(readdirSync(workdir).sort()).toEqual(['.env', 'config.lock', 'config.yaml', 'data'])
    expect(readdirSync(join(workdir, 'data'))).toContain('prherald.db')
    expect(terminal.output()).toContain(`wrote ${join(workdir, 'config.yaml')}`)

    const smoke = await runShellScript(second, env, home)
    expect(smoke.output).toMatch(/^OK\s+message\s+C0QUICK0001\s+"prherald smoke test [0-9a-f]{8}" appeared/m)
    expect(smoke.output).toMatch(/^OK\s+cleanup\s+C0QUICK0001\s/m)
    expect(smoke.status).toBe(0)
    expect(slack.messagesIn(CHANNEL)).toEqual([])

    // The git host's first real delivery, signed with the secret the setup generated.
    const dotenv = parseEnv(readFileSync(join(workdir, '.env'), 'utf8'))
    const secret = provider === 'github' ? dotenv.GITHUB_WEBHOOK_SECRET : dotenv.BITBUCKET_WEBHOOK_SECRET
    expect(secret).toMatch(/^[0-9a-f]{64}$/)
    if (provider === 'github') {
      // The webhook the setup created carries that secret and the public URL.
      expect(github!.hooks.get('acme/api')?.map((h) => h.config)).toEqual([expect.objectContaining({ url: `${url}/webhook/github`, secret })])
    }
    const event = provider === 'github' ? 'pull_request' : 'pullrequest:created'
    const response = await deliver(url, provider, { event, payload: payload(provider), secret })
    expect(await response.json()).toEqual({ status: 'accepted' })
    await waitFor('the pull request\'s message in the channel', () => slack!.messagesIn(CHANNEL).length === 1, 20_000)

    // Ctrl-C, as a terminal sends it: to the whole process group. The server gets it once and drains.
    await terminal.stop('SIGINT')
    expect(terminal.output()).toMatch(/stopped.*drained=true/)
    expect(terminal.output()).not.toMatch(/\bat .*\.js:\d+/)
  }, 120_000)
})
