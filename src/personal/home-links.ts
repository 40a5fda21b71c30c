import { escapeText } from '../slack/render-message.ts'
import type { TalkBack } from '../talk-back/create-talk-back.ts'

/** Not one of HOME_ACTIONS: the button opens its URL, and Slack's click report is acknowledged and ignored. */
const LINK_ACTION = 'prherald_home_link'

/**
 * The home tab's linked accounts (docs/talk-back.md): each host people can link here, the login when the
 * person's account is linked, else a "Link your <host> account" button. Its URL is a fresh link made for the
 * person whose tab it is (the tab is published again each time they open it, so the link is new then; it works
 * for ten minutes, once, in one browser).
 */
export async function homeLinkBlocks(talkBack: TalkBack, user: string): Promise<unknown[]> {
  const hosts = talkBack.linkableHosts()
  if (hosts.length === 0) return []
  const linked = await talkBack.vault.linkedHosts(user)
  const blocks: unknown[] = [{ type: 'divider' }, { type: 'section', text: { type: 'mrkdwn', text: '*Your git accounts* (your thread replies and reviews from Slack are made as you)' } }]
  for (const own of hosts) {
    const name = own.host.words.name
    // A link the configured keys cannot open is shown as not linked, with the button to link again.
    const login = linked.find((l) => l.host === own.id && l.opens)?.login
    if (login !== undefined) {
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `${name}: linked as *${escapeText(login)}* (\`/prherald unlink ${own.id}\` ends it)` } })
      continue
    }
    const url = await talkBack.linkUrl(user, own.id)
    if (url === undefined) continue
    blocks.push({
      type: 'section', text: { type: 'mrkdwn', text: `${name}: not linked` },
      accessory: { type: 'button', text: { type: 'plain_text', text: `Link your ${name} account` }, action_id: `${LINK_ACTION}_${own.id}`, url },
    })
  }
  return blocks
}
