import { describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 13's reaction and channel levers, end to end: real server, real SQLite, fake Slack, signed
 * deliveries of both hosts. GitHub deliveries are GitHub's example payloads (owner Codertocat, repository
 * Hello-World); Bitbucket deliveries are documented payload shapes (workspace acme, repository api).
 */
const TEAM = 'C0000000001'
const RELEASES = 'C0000000002'
const OTHER = 'C0000000003'

const h = usePrherald()

async function start(provider: Provider, config: Record<string, unknown>): Promise<TestService> {
  writeConfig(h.dir.path, { git_provider: provider, ...config } as never)
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url }))
  return h.service!
}

/** One delivery per host, the same scenario: open, approve, merge. */
const scenario = {
  github: [
    { event: 'pull_request', payload: pullRequest('opened', 7) },
    { event: 'pull_request_review', payload: review('approved', 7, 'carol') },
    { event: 'pull_request', payload: pullRequest('closed', 7, { merged: true }) },
  ],
  bitbucket: [
    { event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 7 }) },
    { event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 7, actor: 'carol' }) },
    { event: 'pullrequest:fulfilled', payload: bitbucketPayload('pullrequest:fulfilled', { id: 7, state: 'MERGED' }) },
  ],
} as const

async function send(provider: Provider, steps: ReadonlyArray<{ event: string; payload: unknown }>): Promise<void> {
  for (const step of steps) {
    const res = await deliver(h.service!.url, provider, step)
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
}

const mappingFor = (provider: Provider, entry: Record<string, unknown>, star?: Record<string, unknown>) =>
  provider === 'github'
    ? { Codertocat: { ...(star ? { '*': star } : {}), 'Hello-World': entry } }
    : { acme: { ...(star ? { '*': star } : {}), api: entry } }

describe.each(['github', 'bitbucket'] as const)('%s: reactions per team', (provider) => {
  it('off by default for new_pr; a repository tier renames one emoji and inherits the rest from the owner\'s "*" and the global keys', async () => {
    await start(provider, {
      slack: { reactions: { merged: 'rocket' } },
      mappings: mappingFor(provider, { channel: TEAM, slack: { reactions: { approved: 'thumbsup' } } }, { channel: OTHER, slack: { reactions: { new_pr: 'new' } } }),
    })
    await send(provider, scenario[provider])
    const [message] = h.slack.messagesIn(TEAM)
    expect(h.slack.messagesIn(TEAM)).toHaveLength(1)
    expect([...message!.reactions].sort()).toEqual(['new', 'rocket', 'thumbsup'])
  })

  it('without any tier setting, the global defaults apply and no new_pr reaction is added', async () => {
    await start(provider, { mappings: mappingFor(provider, { channel: TEAM }) })
    await send(provider, scenario[provider])
    expect([...h.slack.messagesIn(TEAM)[0]!.reactions].sort()).toEqual(['twisted_rightwards_arrows', 'white_check_mark'])
  })

  it('enabled: false keeps the message up to date and adds no reactions', async () => {
    await start(provider, { mappings: mappingFor(provider, { channel: TEAM }, { channel: OTHER, slack: { reactions: { enabled: false } } }) })
    await send(provider, scenario[provider])
    const [message] = h.slack.messagesIn(TEAM)
    expect(message!.reactions.size).toBe(0)
    expect(message!.text).toContain('Merged')
    expect(h.slack.count('reactions.add')).toBe(0)
  })

  it('after an emoji is renamed, the next event swaps the old emoji on the message for the new one', async () => {
    await start(provider, { mappings: mappingFor(provider, { channel: TEAM }) })
    await send(provider, scenario[provider].slice(0, 2))
    expect([...h.slack.messagesIn(TEAM)[0]!.reactions]).toEqual(['white_check_mark'])
    await h.stop()
    await start(provider, { mappings: mappingFor(provider, { channel: TEAM, slack: { reactions: { approved: 'thumbsup' } } }) })
    await send(provider, scenario[provider].slice(2))
    expect([...h.slack.messagesIn(TEAM)[0]!.reactions].sort()).toEqual(['thumbsup', 'twisted_rightwards_arrows'])
    expect(h.slack.count('chat.postMessage')).toBe(1)
  })
})

describe.each(['github', 'bitbucket'] as const)('%s: several channels per repository', (provider) => {
  it('announces in every listed channel, each with its own mentions, and every later event updates each message', async () => {
    await start(provider, {
      mappings: mappingFor(provider, { channels: [TEAM, { id: RELEASES, mentions: [] }], mentions: ['<@U0000ALICE>'] }),
    })
    await send(provider, scenario[provider])
    expect(h.slack.count('chat.postMessage')).toBe(2)
    const [team] = h.slack.messagesIn(TEAM)
    const [releases] = h.slack.messagesIn(RELEASES)
    expect(JSON.stringify(team!.blocks)).toContain('<@U0000ALICE>')
    expect(JSON.stringify(releases!.blocks)).not.toContain('<@U0000ALICE>')
    for (const message of [team!, releases!]) {
      expect(message.text).toContain('Merged')
      expect([...message.reactions].sort()).toEqual(['twisted_rightwards_arrows', 'white_check_mark'])
    }
  })

  it("one channel's refusal does not hold up the other, and is logged with the fix", async () => {
    h.slack.channelErrors.set(RELEASES, 'is_archived')
    await start(provider, { mappings: mappingFor(provider, { channels: [TEAM, RELEASES] }) })
    await send(provider, scenario[provider])
    expect(h.slack.messagesIn(TEAM)[0]!.text).toContain('Merged')
    expect(h.slack.messagesIn(RELEASES)).toHaveLength(0)
    const refused = h.service!.entries().filter((e) => e.msg === 'slack rejected the change; dropping it for this channel')
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((e) => e.channel === RELEASES && typeof e.fix === 'string')).toBe(true)
  })

  it('a repository `channel` replaces the "*" entry\'s `channels`: one message only', async () => {
    await start(provider, { mappings: mappingFor(provider, { channel: OTHER }, { channels: [TEAM, RELEASES] }) })
    await send(provider, scenario[provider].slice(0, 1))
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.body.channel)).toEqual([OTHER])
  })
})
