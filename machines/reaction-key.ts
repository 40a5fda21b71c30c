/** The reactions a message can carry, by what they mean; `slack.reactions` names the emoji for each. */
export type ReactionKey = 'approved' | 'commented' | 'changes_requested' | 'merged' | 'closed' | 'draft' | 'bot' | 'checks_failed'
