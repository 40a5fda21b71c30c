import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HISTORY_SLACK_SCOPES, REQUIRED_SLACK_SCOPES } from '../../src/checks/slack-auth-check.ts'
import { packageRoot } from '../../src/package-root.ts'
import { talkBackScopes } from '../../src/checks/talk-back-slack-check.ts'

/** The manifest in docs/slack-app.md is the one people paste: it must parse and carry exactly the scopes prherald uses. */
const doc = readFileSync(join(packageRoot(), 'docs/slack-app.md'), 'utf8')

describe('the Slack app manifest in docs/slack-app.md', () => {
  const block = /```json\n([\s\S]*?)```/.exec(doc)?.[1]
  const manifest = JSON.parse(block ?? 'null') as { oauth_config?: { scopes?: { bot?: string[] } }; features?: { bot_user?: unknown } }

  it('is valid JSON with a bot user', () => {
    expect(manifest?.features?.bot_user).toBeDefined()
  })

  it('subscribes to app_home_opened at the events route and points /prherald at the commands route', () => {
    const full = manifest as { settings?: { event_subscriptions?: { request_url?: string; bot_events?: string[] } }; features?: { slash_commands?: Array<{ command: string; url: string }> } }
    expect(full.settings?.event_subscriptions?.bot_events).toEqual(['app_home_opened'])
    expect(full.settings?.event_subscriptions?.request_url).toMatch(/\/webhook\/slack\/events$/)
    expect(full.features?.slash_commands?.[0]).toMatchObject({ command: '/prherald', url: expect.stringMatching(/\/webhook\/slack\/commands$/) })
  })

  it('asks for the scopes the checks require, plus channel lookups and history lookups, and nothing else', () => {
    const scopes = manifest?.oauth_config?.scopes?.bot ?? []
    expect(scopes).toEqual(expect.arrayContaining([...REQUIRED_SLACK_SCOPES, ...HISTORY_SLACK_SCOPES]))
    expect([...scopes].sort()).toEqual([
      'channels:history', 'channels:read', 'chat:write', 'commands', 'files:write', 'groups:history', 'groups:read', 'im:history', 'im:write',
      'reactions:write', 'usergroups:read', 'users.profile:read', 'users:read',
    ])
  })
})

describe('the Start review section of docs/slack-app.md', () => {
  it('shows the manifest\'s interactivity setting pointing at the route prherald serves', () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { settings?: { interactivity?: { is_enabled?: boolean; request_url?: string } } })
    const interactivity = blocks.map((b) => b.settings?.interactivity).find((i) => i !== undefined)
    expect(interactivity?.is_enabled).toBe(true)
    expect(interactivity?.request_url).toMatch(/^https:\/\/[^/]+\/webhook\/slack\/interactions$/)
  })
})

describe('the Talk back section of docs/slack-app.md', () => {
  const section = doc.split('## Talk back')[1]?.split('\n## ')[0] ?? ''
  const block = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? 'null') as { settings?: { event_subscriptions?: { request_url?: string; bot_events?: string[] }; interactivity?: { is_enabled?: boolean; request_url?: string } } } | null

  it('subscribes to the channels\' message events, keeping app_home_opened, with interactivity at prherald\'s routes', () => {
    expect(block?.settings?.event_subscriptions?.bot_events).toEqual(['app_home_opened', 'message.channels', 'message.groups'])
    expect(block?.settings?.event_subscriptions?.request_url).toMatch(/^https:\/\/[^/]+\/webhook\/slack\/events$/)
    expect(block?.settings?.interactivity).toEqual({ is_enabled: true, request_url: expect.stringMatching(/\/webhook\/slack\/interactions$/) })
  })

  it('names every scope the doctor asks of talk-back, each of them in the manifest', () => {
    const manifestScopes = (JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? 'null') as { oauth_config: { scopes: { bot: string[] } } }).oauth_config.scopes.bot
    const asked = talkBackScopes({ linking: true, ownComments: true, threadReplies: true, reviews: true }).map((s) => s.scope)
    for (const scope of asked) {
      expect(section, scope).toContain(`\`${scope}\``)
      expect(manifestScopes, scope).toContain(scope)
    }
  })
})
