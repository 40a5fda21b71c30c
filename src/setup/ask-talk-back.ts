import { randomBytes } from 'node:crypto'
import { THREAD_REPLIES } from '../config/schema.ts'
import type { ThreadRepliesSetting } from '../config/talk-back-settings.ts'
import { PrheraldError } from '../errors.ts'
import type { Env, GitHost } from '../hosts/contract.ts'
import { askValid } from './ask-valid.ts'
import type { Asker } from './asker.ts'

export const TALK_BACK_FLAGS = { replies: '--talk-back-replies', reviews: '--talk-back-reviews', clientId: '--oauth-client-id', clientSecret: '--oauth-client-secret' } as const

/** The talk-back flags, as text; undefined asks (on a terminal) or takes the default (with --yes). */
export interface TalkBackFlags {
  talkBackReplies?: string | undefined
  talkBackReviews?: string | undefined
  oauthClientId?: string | undefined
  oauthClientSecret?: string | undefined
}

/** What setup writes for talk-back: the config block, and the .env lines (the OAuth client's names even when not given). */
export interface TalkBackAnswers {
  threadReplies: ThreadRepliesSetting
  reviews: boolean
  /** The host's OAuth client variables by name; a value undefined is written as a commented line to fill in. */
  oauthVariables: Array<[name: string, value: string | undefined]>
  /** PRHERALD_TOKEN_KEY: 32 random bytes, base64, generated here; undefined when the environment already has one. */
  tokenKey: string | undefined
}

type Deps = { ask: Asker; interactive: boolean; print: (line: string) => void; env: Env }

const pick = <T extends string>(values: readonly T[], flag: string) => (answer: string): T => {
  const known = values.find((v) => v === answer.trim())
  if (known) return known
  throw new PrheraldError('usage', `"${answer}" is not one of ${values.join(', ')}`, { fix: `use ${flag} ${values.join('|')}` })
}

/**
 * slack.talk_back (docs/talk-back.md): asked only once the operator turns it on (on a terminal, a yes; with
 * --yes, either flag); then the modes, and the host's OAuth client, which may be left for later: .env then
 * names its variables. Never invents a secret but the token key, which is prherald's own.
 */
export async function askTalkBack(deps: Deps, host: GitHost, flags: TalkBackFlags, publicUrl: string | undefined): Promise<TalkBackAnswers | undefined> {
  const given = flags.talkBackReplies !== undefined || flags.talkBackReviews !== undefined
  if (!given && (!deps.interactive || !(await deps.ask.confirm(
    'Let people answer from Slack: thread replies as comments, reviews from the message, with their own account? (docs/talk-back.md)',
    { flag: TALK_BACK_FLAGS.replies, initial: false },
  )))) return undefined
  const valid = <T>(value: string | undefined, ask: () => Promise<string>, check: (answer: string) => T) =>
    askValid({ given: value ?? (deps.interactive ? undefined : ''), ask, check, retry: deps.interactive, print: deps.print })
  const threadReplies = await valid(flags.talkBackReplies, () => deps.ask.select('Thread replies to the message become comments on the pull request?', {
    flag: TALK_BACK_FLAGS.replies, initial: 'linked',
    choices: [
      { value: 'linked', label: 'linked: replies of people who linked their account, as them' },
      { value: 'everyone', label: 'everyone: also the others\', posted by prherald with their name' },
      { value: 'off', label: 'off: replies stay in Slack' },
    ],
  }), (answer) => (answer === '' ? 'off' : pick(THREAD_REPLIES, TALK_BACK_FLAGS.replies)(answer)))
  const reviews = await valid(flags.talkBackReviews, () => deps.ask.select('Approve, request changes and comment from the message?', {
    flag: TALK_BACK_FLAGS.reviews, initial: 'on',
    choices: [{ value: 'on', label: 'on: each reviewer with their linked account' }, { value: 'off', label: 'off' }],
  }), (answer) => (answer === '' ? 'off' : pick(['on', 'off'] as const, TALK_BACK_FLAGS.reviews)(answer)) === 'on')
  if (threadReplies === 'off' && !reviews) return undefined
  return { threadReplies, reviews, ...await askOAuthClient(deps, host, flags, threadReplies, reviews, publicUrl) }
}

/** The host's OAuth client (optional: linking waits until it is set) and the token key; notes on what else it takes. */
async function askOAuthClient(deps: Deps, host: GitHost, flags: TalkBackFlags, threadReplies: ThreadRepliesSetting, reviews: boolean, publicUrl: string | undefined) {
  const facet = host.talkBack
  if (!facet) throw new PrheraldError('usage', `${host.words.name} offers no talk-back`, { fix: `leave ${TALK_BACK_FLAGS.replies} and ${TALK_BACK_FLAGS.reviews} off` })
  const { clientId, clientSecret } = facet.variables
  const from = (flag: string | undefined, name: string) => flag ?? (deps.env[name]?.trim() || undefined)
  const optional = (value: string | undefined, ask: () => Promise<string>) =>
    valueOrNone(value ?? (deps.interactive ? undefined : ''), ask)
  const id = await optional(from(flags.oauthClientId, clientId), () => deps.ask.text(`${clientId} (the OAuth application's client id; optional: empty leaves it for later)`, { flag: TALK_BACK_FLAGS.clientId, initial: '' }))
  const secret = id === undefined ? undefined
    : await optional(from(flags.oauthClientSecret, clientSecret), () => deps.ask.secret(`${clientSecret}`, { flag: TALK_BACK_FLAGS.clientSecret }))
  const linking = reviews || threadReplies === 'linked'
  if (id === undefined || secret === undefined) deps.print(`note: .env names ${clientId} and ${clientSecret}, to fill in once ${host.words.name}'s OAuth application exists (docs/talk-back.md#turning-it-on); until then nobody can link`)
  if (linking && !publicUrl) deps.print('note: without PRHERALD_PUBLIC_URL there is no OAuth callback, so nobody can link; only thread_replies: everyone works')
  if (threadReplies === 'everyone') deps.print(`note: with everyone, prherald comments with its own credentials, which need ${facet.ownWriteAccess}`)
  deps.print('note: the Slack app needs the bot events message.channels and message.groups and the scopes channels:history, groups:history, reactions:write (docs/slack-app.md#talk-back)')
  return {
    oauthVariables: [[clientId, id], [clientSecret, secret]] as Array<[string, string | undefined]>,
    tokenKey: deps.env.PRHERALD_TOKEN_KEY?.trim() ? undefined : randomBytes(32).toString('base64'),
  }
}

async function valueOrNone(given: string | undefined, ask: () => Promise<string>): Promise<string | undefined> {
  const answer = (given ?? await ask()).trim()
  return answer === '' ? undefined : answer
}
