/** One Slack message a pull request is announced with: the channel and the mentions it carries. */
export interface MessageTarget {
  channel: string
  mentions: string[]
}
