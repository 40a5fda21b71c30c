import { describe, expect, it } from 'vitest'
import { markdownToMrkdwn, shortenMrkdwn } from '../../src/slack/markdown-to-mrkdwn.ts'
import { renderFoldedComments, renderMirroredComment } from '../../src/slack/render-mirrored-comment.ts'

const users: Record<string, string> = { dave: 'U0000DAVE' }
const convert = (markdown: string) => markdownToMrkdwn(markdown, { mention: (login) => users[login] })

describe('markdownToMrkdwn: a host comment as Slack shows it', () => {
  it.each([
    ['bold, both spellings', 'a **big** and __bold__ word', 'a *big* and *bold* word'],
    ['italics', 'an *aside* and _another_', 'an _aside_ and _another_'],
    ['strike-through', 'it was ~~wrong~~', 'it was ~wrong~'],
    ['a link', 'see [the docs](https://example.com/a?b=1)', 'see <https://example.com/a?b=1|the docs>'],
    ['an autolink', 'at <https://example.com/x>', 'at <https://example.com/x>'],
    ['a list', '- one\n- two\n* three', '• one\n• two\n• three'],
    ['a heading', '## Summary\ntext', '*Summary*\ntext'],
    ['a quote', '> said before\nanswer', '> said before\nanswer'],
    ['Slack\'s control characters', 'a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['an image, as a link to it', '![screenshot](https://example.com/s.png)', '<https://example.com/s.png|screenshot (image)>'],
    ['HTML and comments dropped', '<details><summary>More</summary>inside</details><!-- hidden -->', 'Moreinside'],
    ['a javascript: link left as text', '[x](javascript:alert(1))', '[x](javascript:alert(1))'],
  ])('%s', (_what, markdown, mrkdwn) => {
    expect(convert(markdown)).toBe(mrkdwn)
  })

  it('keeps code as typed: no emphasis, mention or link inside, Slack\'s characters escaped', () => {
    expect(convert('run `a **b** @dave <x>` now')).toBe('run `a **b** @dave &lt;x&gt;` now')
    expect(convert('```ts\nconst a = b && c // **not bold**\n```\nafter')).toBe('```const a = b &amp;&amp; c // **not bold**```\nafter')
  })

  it('maps a mention through users:, and leaves anyone else and teams as text (nobody else is pinged)', () => {
    expect(convert('@dave and @erin, and @acme/backend')).toBe('<@U0000DAVE> and @erin, and @acme/backend')
    expect(convert('mail dave@example.com')).toBe('mail dave@example.com')
  })
})

describe('shortenMrkdwn', () => {
  it('leaves a short text alone and cuts a long one at a space, with the link to the rest', () => {
    expect(shortenMrkdwn('short', 100, '<u|more>')).toBe('short')
    const cut = shortenMrkdwn(`${'word '.repeat(100)}`, 50, '<u|more>')
    expect(cut.length).toBeLessThan(70)
    expect(cut).toMatch(/^word( word)* … <u\|more>$/)
  })

  it('never leaves a link half open or a code block unclosed', () => {
    expect(shortenMrkdwn(`text <https://example.com/${'a'.repeat(80)}|label>`, 40, 'more')).toBe('text … more')
    expect(shortenMrkdwn(`\`\`\`${'x '.repeat(60)}\`\`\``, 40, 'more').match(/```/g)).toHaveLength(2)
  })
})

describe('renderMirroredComment', () => {
  it('names the author and the host, and a code comment\'s file and line linked to it, with the Reply button when asked', () => {
    const message = renderMirroredComment({
      author: 'dave', hostName: 'GitHub', replyValue: 'github:acme/api#7 700',
      comment: { id: '700', action: 'created', place: 'code', body: 'Why?', path: 'src/a.ts', line: 3, url: 'https://github.com/acme/api/pull/7#discussion_r700', thread: '700' },
    }, { mention: () => undefined })
    expect(message.text).toBe('*dave* on GitHub on <https://github.com/acme/api/pull/7#discussion_r700|`src/a.ts:3`>: Why?')
    expect(JSON.stringify(message.blocks)).toContain('"value":"github:acme/api#7 700"')
  })

  it('cuts a long body with a link to read it at the host', () => {
    const message = renderMirroredComment({ author: 'dave', hostName: 'GitLab', comment: { id: '1', action: 'created', place: 'conversation', body: 'long '.repeat(1000), url: 'https://gitlab.example.com/n/1' } }, { mention: () => undefined })
    expect(message.text.length).toBeLessThan(1600)
    expect(message.text).toMatch(/… <https:\/\/gitlab\.example\.com\/n\/1\|read it on GitLab>$/)
  })

  it('folds many comments into one line with the count, a few names and the pull request\'s link', () => {
    expect(renderFoldedComments(37, ['renovate[bot]', 'dave', 'erin', 'fay', 'gus'], 'GitHub', 'https://github.com/acme/api/pull/7').text)
      .toBe(':speech_balloon: 37 new comments on GitHub by renovate[bot], dave, erin and 2 more: <https://github.com/acme/api/pull/7|read them on the pull request>')
  })
})
