import { describe, expect, it } from 'vitest'
import { readSecrets } from '../../src/config/load-config.ts'
import type { Settings } from '../../src/config/settings.ts'
import { PrheraldError } from '../../src/errors.ts'
import { configFile } from '../helpers/config-file.ts'

const { load, refusal } = configFile()



/** Without what a host block holds, for comparing two forms of one configuration. */
const plain = (s: Settings) => s.hosts.map(({ id, mappings, users, teams, apiUrl }) => ({ id, mappings, users, teams, apiUrl }))

const TWO_HOSTS = `hosts:
  github:
    mappings: { acme: { api: { channel: C0API } } }
    users: { Alice: U0ALICE }
    teams: { Platform: S0PLATFORM }
  gitlab:
    mappings: { acme: { api: { channel: C0GLAPI } }, "acme/platform": { widgets: { channel: C0W } } }
    users: { alice.smith: U0ALICE }
slack: { thread_updates: true }
`

describe('hosts:', () => {
  it('reads a block per host, in the registry\'s order, each with its own mappings, people and API base', () => {
    const s = load(TWO_HOSTS, { GITLAB_API_URL: 'http://127.0.0.1:1/api/v4/' })
    expect(s.hostsForm).toBe('hosts')
    expect(plain(s)).toEqual([
      { id: 'github', mappings: { acme: { api: { channel: 'C0API' } } }, users: { alice: 'U0ALICE' }, teams: { platform: 'S0PLATFORM' }, apiUrl: 'https://api.github.com' },
      {
        id: 'gitlab', mappings: { acme: { api: { channel: 'C0GLAPI' } }, 'acme/platform': { widgets: { channel: 'C0W' } } },
        users: { 'alice.smith': 'U0ALICE' }, teams: {}, apiUrl: 'http://127.0.0.1:1/api/v4',
      },
    ])
    expect(s.hosts.map((h) => h.host.words.name)).toEqual(['GitHub', 'GitLab'])
    // Everything else is shared.
    expect(s.threadUpdates).toBe(true)
  })

  it('reads today\'s single-host file as exactly hosts: { <git_provider>: … }', () => {
    const single = load('git_provider: github\nmappings: { acme: { api: { channel: C0API } } }\nusers: { Alice: U0ALICE }\nteams: { Platform: S0PLATFORM }\n')
    const block = load('hosts:\n  github:\n    mappings: { acme: { api: { channel: C0API } } }\n    users: { Alice: U0ALICE }\n    teams: { Platform: S0PLATFORM }\n')
    expect(plain(single)).toEqual(plain(block))
    expect(single.hostsForm).toBe('git_provider')
  })

  it('refuses git_provider beside hosts:, and top-level people or mappings beside it, with the fix', () => {
    const both = refusal(`git_provider: github\n${TWO_HOSTS}`)
    expect(both).toContain('git_provider: is set beside hosts:; remove git_provider')
    const stray = refusal(`${TWO_HOSTS}users: { bob: U0BOB }\n`)
    expect(stray).toContain('users: is at the top beside hosts:; move it under the host it belongs to')
  })

  it('a top-level mappings: beside hosts: is said with a bad value elsewhere, not hidden by it', () => {
    const message = refusal('mappings: { acme: { api: { channel: C0API } } }\nhosts:\n  github:\n    mappings: { acme: { web: { channel: nope } } }\n')
    expect(message).toContain('mappings: is at the top beside hosts:; move it under the host it belongs to')
    expect(message).toContain('hosts.github.mappings.acme.web.channel: "nope" is not a Slack channel ID')
  })

  it('refuses an empty hosts: and an unknown host kind, naming the kinds', () => {
    expect(refusal('hosts: {}\n')).toContain('hosts: lists no host; add one of github, bitbucket, gitlab')
    expect(refusal('hosts:\n  gitea:\n    mappings: { acme: { api: { channel: C0API } } }\n')).toMatch(/hosts\.gitea: unknown key.*github, bitbucket, gitlab/)
  })

  it('names the host in every problem of a block', () => {
    const message = refusal(`hosts:
  github:
    mappings: { acme: { api: {} } }
    users: { alice: U0ALICE, ALICE: U0OTHER }
  bitbucket:
    mappings: { acme: { api: { channel: C0API, assign: { team: web } } } }
    teams: { core: S0CORE }
`)
    expect(message).toContain('hosts.github.mappings.acme.api.channel: is required: set a channel (or channels) here or in hosts.github.mappings.acme."*"')
    expect(message).toContain('hosts.github.users.ALICE: is the same GitHub login as hosts.github.users.alice')
    expect(message).toContain('hosts.bitbucket.mappings.acme.api.assign.team: "web" is not in hosts.bitbucket.teams')
    // The schema's own problems carry the block's path too, with the line.
    expect(refusal('hosts:\n  gitlab:\n    mappings: { acme: { api: { channel: "#api" } } }\n'))
      .toContain('line 3, hosts.gitlab.mappings.acme.api.channel: "#api" is a channel name')
  })

  it('lets one Slack user be mapped on several hosts, and refuses their own settings when the blocks differ', () => {
    const same = load(`hosts:
  github:
    mappings: { acme: { api: { channel: C0API } } }
    users: { alice: { slack: U0ALICE, direct_messages: on } }
  gitlab:
    mappings: { acme: { api: { channel: C0API } } }
    users: { alice.smith: U0ALICE }
`)
    expect(same.directMessages.people).toEqual({ U0ALICE: { directMessages: 'on', workingHours: undefined } })
    const differ = refusal(`hosts:
  github:
    mappings: { acme: { api: { channel: C0API } } }
    users: { alice: { slack: U0ALICE, direct_messages: on } }
  gitlab:
    mappings: { acme: { api: { channel: C0API } } }
    users: { alice.smith: { slack: U0ALICE, direct_messages: off } }
`)
    expect(differ).toContain('hosts.gitlab.users.alice.smith: maps U0ALICE with other settings than hosts.github.users.alice')
    expect(differ).toContain('write the same values in both')
  })

  it('refuses slack.lookup_users_by_email only when no configured host gives emails', () => {
    expect(load(`${TWO_HOSTS}`.replace('slack: { thread_updates: true }', 'slack: { lookup_users_by_email: true }')).lookupUsersByEmail).toBe(true)
    expect(refusal('hosts:\n  bitbucket:\n    mappings: { acme: { api: { channel: C0API } } }\nslack: { lookup_users_by_email: true }\n'))
      .toContain('slack.lookup_users_by_email: does not work with Bitbucket')
  })

  it('needs every configured host\'s webhook secret, naming each missing variable', () => {
    const s = load(TWO_HOSTS)
    let error: PrheraldError | undefined
    try { readSecrets({ SLACK_BOT_TOKEN: 'xoxb-1', GITHUB_WEBHOOK_SECRET: 'a'.repeat(32) }, s.hosts) } catch (e) { error = e as PrheraldError }
    expect(error?.code).toBe('env_missing')
    expect(error?.message).toContain('GITLAB_WEBHOOK_SECRET')
    expect(error?.message).not.toContain('GITHUB_WEBHOOK_SECRET')
    const secrets = readSecrets({ SLACK_BOT_TOKEN: 'xoxb-1', GITHUB_WEBHOOK_SECRET: 'g'.repeat(32), GITLAB_WEBHOOK_SECRET: 'l'.repeat(32) }, s.hosts)
    expect(Object.keys(secrets.hosts)).toEqual(['github', 'gitlab'])
    expect(secrets.hosts.gitlab?.webhookSecret).toBe('l'.repeat(32))
  })
})
