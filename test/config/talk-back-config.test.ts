import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'
import { layTalkBack } from '../../src/config/talk-back-settings.ts'
import { PrheraldError } from '../../src/errors.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

function load(yaml: string) {
  writeFileSync(join(dir.path, 'config.yaml'), `git_provider: github\n${yaml}`)
  return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml') }, dir.path)
}
function failure(yaml: string): PrheraldError {
  try {
    load(yaml)
  } catch (error) {
    expect(error).toBeInstanceOf(PrheraldError)
    return error as PrheraldError
  }
  throw new Error('expected the configuration to be refused')
}

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'
const tier = (where: 'star' | 'repo', block: string) =>
  where === 'star'
    ? `mappings:\n  acme:\n    "*":\n      channel: C0123ABC\n      slack:\n        talk_back:\n          ${block}\n    api:\n      mentions: []\n`
    : `mappings:\n  acme:\n    api:\n      channel: C0123ABC\n      slack:\n        talk_back:\n          ${block}\n`

describe('slack.talk_back', () => {
  it('is off unless turned on, and each key of a later tier replaces the earlier one', () => {
    expect(load(MAPPINGS).talkBack).toEqual({ threadReplies: 'off', reviews: false, reviewActions: 'menu', mirror: 'off', external: 'linked' })
    const s = load(`slack:\n  talk_back:\n    thread_replies: everyone\n    reviews: on\n    external: everyone\n${tier('star', 'review_actions: buttons\n          external: off')}`)
    expect(s.talkBack).toEqual({ threadReplies: 'everyone', reviews: true, reviewActions: 'menu', mirror: 'off', external: 'everyone' })
    const route = resolveRoute(s.hosts[0]!.mappings, 'acme', 'api')
    expect(route && layTalkBack(s.talkBack, ...route.talkBack)).toEqual({ threadReplies: 'everyone', reviews: true, reviewActions: 'buttons', mirror: 'off', external: 'off' })
  })

  const bad: Array<[string, string, string]> = [
    ['thread_replies', `slack:\n  talk_back:\n    thread_replies: all\n${MAPPINGS}`, 'slack.talk_back.thread_replies: "all" is not allowed; use one of "off","linked","everyone"'],
    ['reviews', `slack:\n  talk_back:\n    reviews: yes\n${MAPPINGS}`, 'slack.talk_back.reviews: "yes" is not allowed; use one of "on","off"'],
    ['review_actions', `slack:\n  talk_back:\n    review_actions: dropdown\n${MAPPINGS}`, 'slack.talk_back.review_actions: "dropdown" is not allowed; use one of "buttons","menu"'],
    ['a mapping\'s "*" thread_replies', tier('star', 'thread_replies: mine'), 'mappings.acme.*.slack.talk_back.thread_replies: "mine" is not allowed; use one of "off","linked","everyone"'],
    ['a repository\'s reviews', tier('repo', 'reviews: maybe'), 'mappings.acme.api.slack.talk_back.reviews: "maybe" is not allowed; use one of "on","off"'],
    ['a repository\'s review_actions', tier('repo', 'review_actions: modal'), 'mappings.acme.api.slack.talk_back.review_actions: "modal" is not allowed; use one of "buttons","menu"'],
    ['external', `slack:\n  talk_back:\n    external: guests\n${MAPPINGS}`, 'slack.talk_back.external: "guests" is not allowed; use one of "off","linked","everyone"'],
    ['a repository\'s external', tier('repo', 'external: yes'), 'mappings.acme.api.slack.talk_back.external: "yes" is not allowed; use one of "off","linked","everyone"'],
  ]
  it.each(bad)('refuses a bad %s, naming the key and the allowed values', (_name, yaml, message) => {
    const error = failure(yaml)
    expect(error.code).toBe('config_invalid')
    expect(error.message).toContain(join(dir.path, 'config.yaml'))
    expect(error.message).toContain(message)
  })

  it('refuses an unknown key in the block, listing the known ones', () => {
    const error = failure(`slack:\n  talk_back:\n    thread_reply: linked\n${MAPPINGS}`)
    expect(error.message).toContain('slack.talk_back.thread_reply: unknown key; remove it or fix its spelling (allowed here: mirror, thread_replies, reviews, review_actions, external)')
    expect(failure(tier('repo', 'approve: on')).message).toContain('mappings.acme.api.slack.talk_back.approve: unknown key')
  })
})
