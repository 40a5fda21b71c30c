import { layTalkBack, type TalkBackSettings } from '../config/talk-back-settings.ts'
import type { Route } from '../routing/resolve-route.ts'

const describe = (t: TalkBackSettings) =>
  `thread_replies ${t.threadReplies}, reviews ${t.reviews ? 'on' : 'off'}, review_actions ${t.reviewActions}, mirror ${t.mirror}, external ${t.external}`

/**
 * `slack.talk_back` as it takes effect, for `prherald-config list`: the global tier, then each mapping entry
 * whose tiers (its own or its owner's `"*"`) make it differ.
 */
export function formatTalkBack(global: TalkBackSettings, routes: readonly Route[]): string[] {
  const base = describe(global)
  const differing = routes
    .map((r) => ({ name: `${r.owner}/${r.repo}`, text: describe(layTalkBack(global, ...r.talkBack)) }))
    .filter((r) => r.text !== base)
  return [
    `slack.talk_back: ${base}${global.threadReplies === 'off' && !global.reviews && global.mirror === 'off' && differing.length === 0 ? ' (people cannot answer from Slack; docs/talk-back.md)' : ''}`,
    ...differing.map((r) => `  ${r.name}: ${r.text}`),
  ]
}
