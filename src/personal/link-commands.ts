import { escapeText } from '../slack/render-message.ts'
import type { Logger } from '../log/logger.ts'
import type { TalkBack } from '../talk-back/create-talk-back.ts'
import { auditTalkBack } from '../talk-back/person-limits.ts'
import type { UnlinkOutcome } from '../talk-back/token-vault.ts'

/** The lines `/prherald help` adds when talk-back is on. */
export const LINK_HELP = [
  '• `/prherald link <host>`: link your own git account, so your thread replies and reviews from Slack are yours',
  '• `/prherald link`: which accounts are linked; `/prherald unlink <host>`: end a link',
]

/**
 * `/prherald link [host]` and `/prherald unlink <host>` (docs/talk-back.md): answered to the person alone
 * (the command's ephemeral answer). The link is made for the Slack user Slack's signed request names, never
 * for anyone the text names; it works once, in one browser, for ten minutes.
 */
export function createLinkCommands(deps: { talkBack: TalkBack; logger: Logger }) {
  const { talkBack } = deps
  const nameOf = (host: string) => talkBack.callback.hostOf(host).words.name
  const hostIds = () => talkBack.linkableHosts().map((own) => own.id)
  const which = (verb: string) => hostIds().map((id) => `\`/prherald ${verb} ${id}\``).join(', ')

  async function status(me: string): Promise<string> {
    const ids = hostIds()
    if (ids.length === 0) return 'Linking git accounts is not configured on this prherald (each host needs its OAuth application, PRHERALD_TOKEN_KEY and PRHERALD_PUBLIC_URL).'
    // Each token is used as any use would: one the host no longer renews is gone now (and the person told once).
    // One the configured token keys cannot open is no link here: not said to be one (prherald cannot act as it).
    const linked: Array<{ host: string; login: string }> = []
    const sealed: string[] = []
    for (const row of await talkBack.vault.linkedHosts(me)) {
      if (!row.opens) {
        sealed.push(row.host)
        continue
      }
      const usable = await talkBack.tokenFor(me, row.host).then((token) => token !== undefined, () => true)
      if (usable) linked.push(row)
    }
    const lines = linked.map((l) => `• ${nameOf(l.host)}: linked as *${escapeText(l.login)}* (\`/prherald unlink ${l.host}\` ends it)`)
    for (const host of sealed) lines.push(`• ${nameOf(host)}: your link cannot be used here (prherald's token key no longer opens it); link again.`)
    const others = ids.filter((id) => !linked.some((l) => l.host === id))
    if (others.length > 0) lines.push(`Link ${others.map(nameOf).join(', ')} with ${others.map((id) => `\`/prherald link ${id}\``).join(', ')}.`)
    return [linked.length === 0 ? 'No git account of yours is linked yet.' : '*Your linked accounts*', ...lines].join('\n')
  }

  async function link(me: string, host: string): Promise<string> {
    if (!hostIds().includes(host)) return `"${escapeText(host)}" is not a host you can link here; write ${which('link') || 'nothing: linking is not configured'}.`
    const url = await talkBack.linkUrl(me, host)
    if (!url) return `Linking ${nameOf(host)} accounts is not configured on this prherald.`
    return `<${url}|Link your ${nameOf(host)} account> — the link is yours alone: it works once, in one browser, for ten minutes. Do not forward it.`
  }

  const UNLINKED: Record<UnlinkOutcome, (name: string) => string> = {
    revoked: (name) => `Unlinked: ${name} ended prherald's access to your account, and prherald forgot its token.`,
    unsupported: (name) => `Unlinked: prherald forgot its token. ${name} has no way for prherald to end its access: remove it in your ${name} account settings if you want it gone there too.`,
    revoke_failed: (name) => `Unlinked: prherald forgot its token, but ${name} did not confirm it ended prherald's access; remove it in your ${name} account settings to be sure.`,
    not_linked: (name) => `Your ${name} account is not linked.`,
  }

  async function unlink(me: string, host: string): Promise<string> {
    const linked = await talkBack.vault.linkedHosts(me)
    const known = [...new Set([...hostIds(), ...linked.map((l) => l.host)])]
    if (!known.includes(host)) return `"${escapeText(host)}" is not a host you can unlink here; write ${known.map((id) => `\`/prherald unlink ${id}\``).join(', ') || 'nothing: no account of yours is linked'}.`
    const login = linked.find((l) => l.host === host)?.login
    const outcome = await talkBack.vault.unlink(me, host)
    if (outcome !== 'not_linked') auditTalkBack(deps.logger, { slackUser: me, host, login, action: 'unlink', pr: '-', outcome })
    return UNLINKED[outcome](nameOf(host))
  }

  return {
    /** `link` with its argument (empty: the status). */
    async run(word: 'link' | 'unlink', me: string, argument: string): Promise<string> {
      const host = argument.trim().toLowerCase()
      if (word === 'link') return host === '' ? status(me) : link(me, host)
      return host === '' ? `Write which one: ${which('unlink') || 'no host can be linked here'}.` : unlink(me, host)
    },
  }
}

export type LinkCommands = ReturnType<typeof createLinkCommands>
