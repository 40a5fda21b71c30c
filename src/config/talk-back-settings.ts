import type { EXTERNAL_REPLIES, MIRROR, REVIEW_ACTIONS, TalkBackTier, THREAD_REPLIES } from './schema.ts'

export type ThreadRepliesSetting = (typeof THREAD_REPLIES)[number]
export type ReviewActionsSetting = (typeof REVIEW_ACTIONS)[number]
export type MirrorSetting = (typeof MIRROR)[number]
export type ExternalRepliesSetting = (typeof EXTERNAL_REPLIES)[number]

/** `slack.talk_back` as it takes effect for one repository (docs/talk-back.md). Everything is off unless turned on. */
export interface TalkBackSettings {
  /** `thread_replies`: off; `linked` (replies of linked people become their comments); `everyone` (others' by prherald, named). */
  threadReplies: ThreadRepliesSetting
  /** `reviews: on`: the message offers Approve, Request changes and Comment. */
  reviews: boolean
  /** `review_actions`: one overflow menu (`menu`, the default) or three buttons. */
  reviewActions: ReviewActionsSetting
  /** `mirror`: off; `comments` (the pull request's conversation comes into the thread); `all` (review bodies and code comments too). */
  mirror: MirrorSetting
  /**
   * `external`: the replies of Slack guests and of people from another workspace (Slack Connect). `off`: none
   * goes to the pull request; `linked` (the default): only as their own linked account, never by prherald's
   * even with `thread_replies: everyone`; `everyone`: as any member's.
   */
  external: ExternalRepliesSetting
}

export const TALK_BACK_DEFAULTS: TalkBackSettings = { threadReplies: 'off', reviews: false, reviewActions: 'menu', mirror: 'off', external: 'linked' }

/** Each key of the later tier replaces the earlier's: the global block, then the owner's `"*"`, then the repository's. */
export function layTalkBack(base: TalkBackSettings, ...tiers: Array<TalkBackTier | undefined>): TalkBackSettings {
  return tiers.reduce<TalkBackSettings>((into, tier) => ({
    threadReplies: tier?.thread_replies ?? into.threadReplies,
    reviews: tier?.reviews === undefined ? into.reviews : tier.reviews === 'on',
    reviewActions: tier?.review_actions ?? into.reviewActions,
    mirror: tier?.mirror ?? into.mirror,
    external: tier?.external ?? into.external,
  }), base)
}

/** Whether any repository can use talk-back at all: nothing of it starts otherwise. */
export const talkBackUsed = (all: TalkBackSettings[]): boolean => all.some((t) => t.threadReplies !== 'off' || t.reviews)
