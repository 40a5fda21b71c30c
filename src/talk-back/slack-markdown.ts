/**
 * Slack's markup (`mrkdwn`, as a `message` event's `text` carries it) into the Markdown GitHub, GitLab and
 * Bitbucket render, for a thread reply that becomes a pull-request comment. Pure: who a Slack user is on the
 * host is the caller's answer (`mention`), so one function serves the three hosts.
 */
export interface SlackMarkdownOptions {
  /** The host's mention for a Slack user (`@alice`; Bitbucket `@{557058:…}`); undefined when `users:` has no one. */
  mention(slackUserId: string): string | undefined
  /** Files and images of the reply: named with their Slack link, since the host cannot show Slack's copy. */
  files?: ReadonlyArray<{ name: string; permalink: string }>
  /**
   * `@name` typed as text (not a Slack mention) shown inert, as code: in a comment prherald's own account makes,
   * it would otherwise ping whoever the host knows by that name, through prherald. The hosts find no mention
   * in code (GitHub: "mentions are not parsed inside code"; GitLab skips code blocks and spans; Bitbucket the
   * same), and a backslash does not escape one on any of them (github/cmark-gfm#181, gitlab-org/gitlab#33716).
   */
  inertMentions?: boolean
}

// Code first: nothing inside a code span or block is markup (Slack shows it as typed, entities aside).
const CODE = /```([\s\S]*?)```|`([^`\n]+)`/g
// Slack's own syntax between angle brackets: <@U1>, <#C1|name>, <!here>, <url|text>.
const ANGLE = /<([^<>\n]+)>/g

const decodeAll = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/**
 * Outside code, `&lt;` and `&gt;` stay entities (Markdown renders them as the characters the person typed,
 * where a bare `<b>` would be HTML); `&amp;` becomes `&` unless that would spell another entity.
 */
const decodeText = (text: string) => text.replace(/&amp;(?![#a-zA-Z0-9]+;)/g, '&')

// `@login`, `@org/team`, `@group/subgroup`, Bitbucket's `@{account-id}`; not an email's or a URL's `@`.
const TYPED_MENTION = /(^|[^\w@/.`\\-])@(\{[^}\s]+\}|[A-Za-z0-9_](?:[\w.-]*[\w-])?(?:\/[A-Za-z0-9_](?:[\w.-]*[\w-])?)*)/g

// Slack's emphasis: the marker after a start, space or opening punctuation, the text not starting or ending in a space.
const emphasis = (marker: string) => new RegExp(
  `(^|[\\s([{"'])\\${marker}(?=\\S)([^${marker}\\n]*?\\S)\\${marker}(?=$|[\\s.,;:!?)\\]}"'])`, 'gm',
)
const BOLD = emphasis('*')
const STRIKE = emphasis('~')
// `_italic_` means the same in Markdown; it is left as written.

/** A code span that shows `text` whatever it holds (a backtick inside needs a longer fence). */
const codeSpan = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``)

function angle(inner: string, options: SlackMarkdownOptions): string {
  const bar = inner.indexOf('|')
  const target = bar < 0 ? inner : inner.slice(0, bar)
  const label = bar < 0 ? undefined : inner.slice(bar + 1)
  if (target.startsWith('@')) {
    const id = target.slice(1)
    // Someone `users:` does not map: their name as code, so that no account of the same name on the host is pinged.
    return options.mention(id) ?? codeSpan(`@${label ?? id}`)
  }
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`
  if (target.startsWith('!')) {
    // <!here>, <!channel>: Slack's broadcasts mean nothing on the host; <!subteam^S1|@team>, <!date^…|fallback>: their label.
    return label ?? codeSpan(`@${target.slice(1).split('^')[0]}`)
  }
  const url = decodeAll(target)
  if (!/^(?:https?|mailto):/i.test(url)) return `&lt;${inner}&gt;`
  const text = label === undefined ? undefined : decodeText(label)
  return text === undefined || text === url ? `<${url}>` : `[${text.replace(/[[\]]/g, '\\$&')}](${url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`
}

/** Text outside Slack's angle brackets: its typed `@name`s made inert when asked. */
const typed = (text: string, options: SlackMarkdownOptions) =>
  options.inertMentions ? text.replace(TYPED_MENTION, (_, before: string, name: string) => `${before}${codeSpan(`@${name}`)}`) : text

function prose(text: string, options: SlackMarkdownOptions): string {
  const decoded = decodeText(text)
  let linked = ''
  let last = 0
  for (const match of decoded.matchAll(ANGLE)) {
    linked += typed(decoded.slice(last, match.index), options) + angle(match[1]!, options)
    last = match.index + match[0].length
  }
  linked += typed(decoded.slice(last), options)
  const marked = linked
    .replace(BOLD, (_, before: string, body: string) => `${before}**${body}**`)
    .replace(STRIKE, (_, before: string, body: string) => `${before}~~${body}~~`)
  // A quote (`&gt; ` at a line's start) is a quote in Markdown too; a `#` there would become a heading, which Slack has not.
  return marked.replace(/^&gt; ?/gm, '> ').replace(/^(\s*)#/gm, '$1\\#')
}

/** The reply's text as the host's Markdown. */
export function slackToMarkdown(text: string, options: SlackMarkdownOptions): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(CODE)) {
    out += prose(text.slice(last, match.index), options)
    const [, block, span] = match
    if (block !== undefined) {
      const body = decodeAll(block).replace(/^\n/, '').replace(/\n$/, '')
      const fence = body.includes('```') ? '~~~~' : '```'
      out += `${out === '' || out.endsWith('\n') ? '' : '\n'}${fence}\n${body}\n${fence}\n`
      if (text[match.index + match[0].length] === '\n') last = match.index + match[0].length + 1
      else last = match.index + match[0].length
      continue
    }
    out += codeSpan(decodeAll(span ?? ''))
    last = match.index + match[0].length
  }
  out += prose(text.slice(last), options)
  const files = (options.files ?? []).map((f) => `- [${f.name.replace(/[[\]]/g, '\\$&')}](${f.permalink})`)
  return files.length === 0 ? out.trimEnd() : `${out.trimEnd()}\n\nFiles shared in Slack:\n${files.join('\n')}`
}
