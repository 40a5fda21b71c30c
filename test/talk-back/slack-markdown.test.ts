import { describe, expect, it } from 'vitest'
import { slackToMarkdown } from '../../src/talk-back/slack-markdown.ts'

/** Issue 33.2: a thread reply's Slack markup as the host's Markdown. */
const users: Record<string, string> = { U1: '@alice', U2: '@{557058:0b1c2d3e-aaaa}' }
const convert = (text: string, files?: Array<{ name: string; permalink: string }>) =>
  slackToMarkdown(text, { mention: (id) => users[id], ...(files ? { files } : {}) })

describe('slackToMarkdown', () => {
  it('turns mentions into the host\'s, through users:, and never pings an unmapped name', () => {
    expect(convert('thanks <@U1>, ask <@U2>')).toBe('thanks @alice, ask @{557058:0b1c2d3e-aaaa}')
    expect(convert('cc <@U9>')).toBe('cc `@U9`')
    expect(convert('cc <@U9|bob>')).toBe('cc `@bob`')
    expect(convert('<!here> see <#C1|general>')).toBe('`@here` see #general')
    expect(convert('<!subteam^S1|@backend> please')).toBe('@backend please')
  })

  it('turns links into Markdown links, and keeps a bare one an autolink', () => {
    expect(convert('see <https://example.com/a?b=1&amp;c=2|the docs>')).toBe('see [the docs](https://example.com/a?b=1&c=2)')
    expect(convert('<https://example.com>')).toBe('<https://example.com>')
    expect(convert('<mailto:a@b.example|a@b.example>')).toBe('[a@b.example](mailto:a@b.example)')
    expect(convert('<https://example.com/x_(y)|[x]>')).toBe('[\\[x\\]](https://example.com/x_%28y%29)')
  })

  it('keeps code as code: no markup, mention or entity inside it is converted', () => {
    expect(convert('run `a *b* &lt;c&gt; <@U1>` now')).toBe('run `a *b* <c> <@U1>` now')
    expect(convert('before\n```if (a &amp;&amp; b) { *x* }\n<@U1>```\nafter')).toBe('before\n```\nif (a && b) { *x* }\n<@U1>\n```\nafter')
    expect(convert('```const s = "```"```')).toBe('```\nconst s = "\n```\n"```')
  })

  it('turns bold and strike into Markdown, and leaves italics, which mean the same', () => {
    expect(convert('*really* good, _nice_, ~wrong~')).toBe('**really** good, _nice_, ~~wrong~~')
    expect(convert('2 * 3 * 4 and a*b*c')).toBe('2 * 3 * 4 and a*b*c')
  })

  it('keeps what the person typed: entities, quotes, and a # that is no heading', () => {
    expect(convert('a &lt;b&gt; &amp; c')).toBe('a &lt;b&gt; & c')
    expect(convert('&amp;lt; stays')).toBe('&amp;lt; stays')
    expect(convert('&gt; quoted\n# not a heading')).toBe('> quoted\n\\# not a heading')
  })

  it('names the reply\'s files with their Slack link', () => {
    expect(convert('logs attached', [{ name: 'trace [1].txt', permalink: 'https://acme.slack.com/files/U1/F1/trace.txt' }]))
      .toBe('logs attached\n\nFiles shared in Slack:\n- [trace \\[1\\].txt](https://acme.slack.com/files/U1/F1/trace.txt)')
  })
})
