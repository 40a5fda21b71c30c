/** A link in a person's message to another Slack message: the message's channel and ts, and the link as written. */
export interface MessageLink {
  channel: string
  ts: string
  /** The link as the event's text carries it (`<https://…>` or `<https://…|label>`): what is cut out of the text. */
  written: string
}

// A message event's text carries every link between angle brackets, `<url>` or `<url|label>`, its `&` as `&amp;`
// (docs.slack.dev, "Formatting text for app surfaces": "Slack uses &, <, and > as control characters").
const LINK = /<(https:\/\/[^<>|\s]+)(?:\|[^<>]*)?>/g

/**
 * A permalink's path: chat.getPermalink answers `https://ghostbusters.slack.com/archives/C1H9RESGA/p135854651500008`,
 * and for a message in a thread the same with `?thread_ts=1358546515.000008&cid=C1H9RESGL` (docs.slack.dev,
 * chat.getPermalink). The `p` digits are the ts without its dot; a ts is seconds, a dot and six digits ("ts":
 * "1405894322.002768"), so the last six are after the dot (the docs' own example drops a digit of the seconds).
 */
const PERMALINK = /^\/archives\/([CGD][A-Z0-9]{2,})\/p(\d{1,12})(\d{6})$/

/** Slack's workspaces live at `<name>.slack.com` (Enterprise Grid at `<name>.enterprise.slack.com`). */
const isSlackHost = (host: string) => host === 'slack.com' || host.endsWith('.slack.com')

/**
 * The links to Slack messages in a message event's text, in order. Pure: which of them are prherald's (a mirrored
 * comment's reply in the pull request's thread) is the store's answer.
 */
export function messageLinks(text: string): MessageLink[] {
  const links: MessageLink[] = []
  for (const match of text.matchAll(LINK)) {
    let url: URL
    try {
      url = new URL(match[1]!.replace(/&amp;/g, '&'))
    } catch {
      continue
    }
    const path = PERMALINK.exec(url.pathname)
    if (!isSlackHost(url.hostname) || !path) continue
    links.push({ channel: path[1]!, ts: `${path[2]}.${path[3]}`, written: match[0] })
  }
  return links
}
