import { layTalkBack, type TalkBackSettings } from '../config/talk-back-settings.ts'
import type { HostSettings, Settings } from '../config/settings.ts'
import { listRoutes } from '../routing/resolve-route.ts'

/** What talk-back, as configured, asks of one host's setup (docs/talk-back.md). */
export interface TalkBackNeeds {
  /** Reviews or `linked` replies somewhere: people link their accounts (OAuth client, public URL, token key). */
  linking: boolean
  /** `everyone` somewhere: prherald comments for people who are not linked, with its own credentials. */
  ownComments: boolean
  /** Thread replies somewhere (`linked` or `everyone`): Slack's message events must arrive. */
  threadReplies: boolean
  reviews: boolean
}

/** The settings each of the host's mapping entries takes effect with; the global tier when it maps nothing. */
function effective(global: TalkBackSettings, own: Pick<HostSettings, 'mappings'>): TalkBackSettings[] {
  const routes = listRoutes(own.mappings)
  return routes.length === 0 ? [global] : routes.map((r) => layTalkBack(global, ...r.talkBack))
}

export function talkBackNeeds(global: TalkBackSettings, own: Pick<HostSettings, 'mappings'>): TalkBackNeeds {
  const all = effective(global, own)
  const reviews = all.some((t) => t.reviews)
  return {
    linking: reviews || all.some((t) => t.threadReplies === 'linked'),
    ownComments: all.some((t) => t.threadReplies === 'everyone'),
    threadReplies: all.some((t) => t.threadReplies !== 'off'),
    reviews,
  }
}

/** The needs of every host together: what the Slack app and the shared variables must give. */
export function allTalkBackNeeds(settings: Pick<Settings, 'talkBack' | 'hosts'>): TalkBackNeeds {
  const each = settings.hosts.map((own) => talkBackNeeds(settings.talkBack, own))
  const any = (key: keyof TalkBackNeeds) => each.some((n) => n[key])
  return { linking: any('linking'), ownComments: any('ownComments'), threadReplies: any('threadReplies'), reviews: any('reviews') }
}

export const talkBackOn = (needs: TalkBackNeeds): boolean => needs.threadReplies || needs.reviews
