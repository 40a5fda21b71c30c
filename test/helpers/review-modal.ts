import { randomBytes } from 'node:crypto'
import type { Provider } from '../../machines/pull-request-event.ts'
import { loadSettings, type Env } from '../../src/config/load-config.ts'
import { layTalkBack } from '../../src/config/talk-back-settings.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { hostMappings, resolveHostRoute } from '../../src/routing/resolve-route.ts'
import type { ServiceOptions } from '../../src/service.ts'
import { REVIEW_FORM } from '../../src/slack/decode-review-action.ts'
import { REVIEW_BUTTON_PREFIX, REVIEW_MENU_ACTION } from '../../src/slack/render-review-actions.ts'
import { createOAuthFlows } from '../../src/talk-back/oauth-flows.ts'
import type { TalkBackService } from '../../src/talk-back/talk-back-service.ts'
import { createTokenCipher } from '../../src/talk-back/token-cipher.ts'
import { createTokenVault, type TokenVault } from '../../src/talk-back/token-vault.ts'
import type { FakeOAuthHost } from './fake-oauth.ts'

/** Where the link a person who is not linked is offered points (link33's route; a test only compares it). */
export const linkUrlOf = (slackUser: string, host: string) => `https://prherald.example/oauth/${host}/start?u=${slackUser}`

/**
 * A TalkBackService over the service's own store, from the pieces on main (the vault, the host's talk-back
 * facet against a fake host, the config's `slack.talk_back` laid as settingsFor lays it), until link33's
 * createTalkBack is wired. `link` writes a linked account through the vault, as a finished OAuth flow would.
 */
export function testTalkBack(options: { fake: FakeOAuthHost; env: Env; dir: string }) {
  const kind = options.fake.kind as Provider
  const api = hostOf(kind).talkBack!.connect({ ...options.fake.client, webUrl: options.fake.url }, options.fake.apiUrl)
  let vault: TokenVault | undefined
  const build: NonNullable<ServiceOptions['talkBack']> = ({ store }) => {
    const settings = loadSettings(options.env, options.dir)
    vault = createTokenVault({
      store, cipher: createTokenCipher(randomBytes(32)), apiOf: (host) => (host === kind ? api : undefined),
      redirectUri: (host) => `https://prherald.example/oauth/${host}/callback`, now: Date.now, owner: 'test-replica',
    })
    const service: TalkBackService = {
      settingsFor(host, repository) {
        const cut = repository.lastIndexOf('/')
        const route = resolveHostRoute(hostMappings(settings.hosts), host, repository.slice(0, cut), repository.slice(cut + 1))
        return layTalkBack(settings.talkBack, ...(route?.talkBack ?? []))
      },
      linkable: (host) => host === kind,
      linkUrl: async (slackUser, host) => (host === kind ? linkUrlOf(slackUser, host) : undefined),
      tokenFor: (slackUser, host) => vault!.tokenFor(slackUser, host),
      as: (host, accessToken) => (host === kind ? api.as(accessToken) : undefined),
      mention: (host, key) => hostOf(host).talkBack!.mention(key),
      vault,
      flows: createOAuthFlows({ store, now: Date.now }),
    }
    return service
  }
  return {
    build,
    /** Links `slackUser` to the fake host's account `login`, with tokens the fake issued. */
    async link(slackUser: string, login: string): Promise<void> {
      const account = options.fake.accounts.find((a) => a.login === login)
      if (!account) throw new Error(`the fake ${kind} has no account ${login}`)
      const tokens = options.fake.issue(login)
      await vault!.link(slackUser, kind, { ...tokens, expiresAt: Date.now() + 3_600_000 }, { login, accountKey: account.accountId ?? login })
    },
  }
}

const base = (user: string) => ({
  user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0ACME' },
  api_app_id: 'A0PRHERALD', token: 'legacy-verification-token-unused',
  team: { id: 'T0ACME', domain: 'acme' }, enterprise: null, is_enterprise_install: false,
  trigger_id: `${Date.now()}.1379717998065.${randomBytes(16).toString('hex')}`,
})

/** A click on a message's review action as Slack sends it: the overflow menu's chosen option, or a button. */
export function reviewActionPayload(options: { user: string; channel: string; messageTs: string; action: string; style?: 'menu' | 'buttons' }): Record<string, unknown> {
  const at = { block_id: 'prherald_review', action_ts: `${Math.floor(Date.now() / 1000)}.000200` }
  const action = (options.style ?? 'menu') === 'menu'
    ? { type: 'overflow', action_id: REVIEW_MENU_ACTION, selected_option: { text: { type: 'plain_text', text: options.action }, value: options.action }, ...at }
    : { type: 'button', action_id: `${REVIEW_BUTTON_PREFIX}${options.action}`, text: { type: 'plain_text', text: options.action }, value: options.action, ...at }
  return {
    type: 'block_actions', ...base(options.user),
    container: { type: 'message', message_ts: options.messageTs, channel_id: options.channel, is_ephemeral: false },
    channel: { id: options.channel, name: 'reviews' },
    message: { type: 'message', ts: options.messageTs, bot_id: 'B0000BOT01', text: 'PR', blocks: [] },
    response_url: 'https://hooks.slack.com/actions/T0ACME/1/abc',
    actions: [action],
  }
}

/** A view_submission of a modal as Slack sends it: the view as opened (its private_metadata), the text typed. */
export function viewSubmissionPayload(options: { user: string; viewId: string; view: Record<string, unknown>; text?: string; triggerId?: string }): Record<string, unknown> {
  const value = options.text === undefined ? null : options.text
  return {
    type: 'view_submission', ...base(options.user), ...(options.triggerId ? { trigger_id: options.triggerId } : {}),
    view: {
      ...options.view, id: options.viewId, team_id: 'T0ACME', app_id: 'A0PRHERALD', bot_id: 'B0000BOT01', hash: '1700000000.abcdef',
      root_view_id: options.viewId, previous_view_id: null, external_id: '', clear_on_close: false, notify_on_close: false,
      state: { values: { [REVIEW_FORM.block]: { [REVIEW_FORM.action]: { type: 'plain_text_input', value } } } },
    },
    response_urls: [],
  }
}
