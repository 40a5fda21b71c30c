import { escapeLinkUrl, escapeText } from './render-message.ts'

/**
 * A git host's Markdown (GitHub, GitLab and Bitbucket all write CommonMark with extensions) as Slack `mrkdwn`,
 * for a comment mirrored into a thread. Pure: who a host person is in Slack is the caller's answer (`mention`).
 * Slack's own rules (docs.slack.dev, "Formatting message text"): `*bold*`, `_italic_`, `~strike~`, `` `code` ``,
 * ```` ```block``` ````, `<url|text>` links, `<@U…>` mentions, and "&, < and > must be escaped" in text.
 * Not everything has a counterpart: a heading becomes a bold line, a list item a bullet, an image a link to
 * it (Slack shows no picture from a host), and HTML a comment may hold (`<details>`, `<!-- … -->`) is dropped.
 */
export interface MrkdwnOptions {
  /** The Slack user a host `@login` is, through `users:`; undefined: the name stays text (no one is pinged). */
  mention(login: string): string | undefined
}

// Code first: nothing inside a span or a fenced block is markup.
const CODE = /^(```|~~~)[^\n]*\n([\s\S]*?)(?:\n\1[ \t]*(?:\n|$)|$)|`([^`\n]+)`/gm
const IMAGE = /!\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g
const LINK = /\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g
const AUTOLINK = /<((?:https?|mailto):[^>\s]+)>/g
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g
const HTML_TAG = /<\/?[a-zA-Z][\w-]*(?:\s[^<>]*)?\/?>/g
// A mention as the hosts write it: `@login`, `@org/team`, after a start or a space, not inside an email.
const MENTION = /(^|[\s(])@([A-Za-z0-9][\w.-]*(?:\/[\w.-]+)?)/g

const safeUrl = (url: string) => /^(?:https?|mailto):/i.test(url)

function prose(text: string, options: MrkdwnOptions): string {
  const links: string[] = []
  // Links are set aside as placeholders: their text and URL must not be read as emphasis or mentions.
  const keep = (mrkdwn: string) => `\u0000${links.push(mrkdwn) - 1}\u0000`
  let out = text.replace(HTML_COMMENT, '')
    .replace(IMAGE, (_, alt: string, url: string) => (safeUrl(url) ? keep(`<${escapeLinkUrl(url)}|${escapeText(alt.trim() || 'image')} (image)>`) : ''))
    .replace(LINK, (whole: string, label: string, url: string) => (safeUrl(url) ? keep(`<${escapeLinkUrl(url)}|${escapeText(label).replaceAll('|', '/')}>`) : whole))
    .replace(AUTOLINK, (_, url: string) => keep(`<${escapeLinkUrl(url)}>`))
    .replace(HTML_TAG, '')
  out = escapeText(out)
    // Bold is marked with \u0001 until the single `*` of Markdown's italics became `_`.
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm, (_, heading: string) => `\u0001${heading}\u0001`)
    .replace(/^([ \t]*)[-*+][ \t]+/gm, '$1• ')
    .replace(/\*\*(?=\S)([^*\n]*?\S)\*\*|__(?=\S)([^_\n]*?\S)__/g, (_, a?: string, b?: string) => `\u0001${a ?? b}\u0001`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1_$2_')
    .replace(/\u0001/g, '*')
    .replace(/~~(?=\S)([^~\n]*?\S)~~/g, '~$1~')
    .replace(MENTION, (whole: string, before: string, login: string) => {
      const user = login.includes('/') ? undefined : options.mention(login)
      return user ? `${before}<@${user}>` : whole
    })
  // Markdown's `&gt; ` quote is Slack's `>` quote.
  out = out.replace(/^&gt;[ \t]?/gm, '> ')
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => links[Number(i)]!)
}

/** The comment's Markdown as mrkdwn (not yet shortened: see `shortenMrkdwn`). */
export function markdownToMrkdwn(markdown: string, options: MrkdwnOptions): string {
  const text = markdown.replace(/\r\n?/g, '\n')
  let out = ''
  let last = 0
  for (const match of text.matchAll(CODE)) {
    out += prose(text.slice(last, match.index), options)
    const [whole, , block, span] = match
    out += block !== undefined ? `\`\`\`${escapeText(block)}\`\`\`\n` : `\`${escapeText(span ?? '')}\``
    last = match.index + whole.length
  }
  out += prose(text.slice(last), options)
  return out.replace(/\n{3,}/g, '\n\n').trim()
}

/**
 * At most `max` characters of mrkdwn, cut at a line or a space and never inside `<…>` or a code block; the
 * rest is behind `more` (a link to the comment). Slack counts a section's text up to 3000 characters.
 */
export function shortenMrkdwn(mrkdwn: string, max: number, more: string): string {
  if (mrkdwn.length <= max) return mrkdwn
  let cut = mrkdwn.lastIndexOf('\n', max)
  if (cut < max / 2) cut = mrkdwn.lastIndexOf(' ', max)
  if (cut < max / 2) cut = max
  let kept = mrkdwn.slice(0, cut)
  // An open `<…` or an odd number of fences would swallow what follows.
  const open = kept.lastIndexOf('<')
  if (open > kept.lastIndexOf('>')) kept = kept.slice(0, open)
  if ((kept.match(/```/g)?.length ?? 0) % 2 === 1) kept += '```'
  return `${kept.trimEnd()} … ${more}`
}
