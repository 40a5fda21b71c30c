import { describe, expect, it } from 'vitest'
import { messageLinks } from '../../src/slack/message-links.ts'

/** Permalinks as chat.getPermalink gives them and as a message event's text carries them (between `<` and `>`, `&` as `&amp;`). */
describe('messageLinks', () => {
  it('reads the channel and the ts (the p digits, the dot before the last six) of a permalink, with or without a label', () => {
    const text = 'see <https://acme.slack.com/archives/C0123ABC/p1712345678123456?thread_ts=1712345678.000100&amp;cid=C0123ABC|this> and <https://acme.slack.com/archives/G0PRIVATE/p1712345679000200>'
    expect(messageLinks(text)).toEqual([
      { channel: 'C0123ABC', ts: '1712345678.123456', written: '<https://acme.slack.com/archives/C0123ABC/p1712345678123456?thread_ts=1712345678.000100&amp;cid=C0123ABC|this>' },
      { channel: 'G0PRIVATE', ts: '1712345679.000200', written: '<https://acme.slack.com/archives/G0PRIVATE/p1712345679000200>' },
    ])
  })

  it('takes Enterprise Grid workspaces, and leaves out other sites, other Slack pages and text that is not a link', () => {
    expect(messageLinks('<https://acme.enterprise.slack.com/archives/C0123ABC/p1712345678123456>')).toHaveLength(1)
    expect(messageLinks([
      '<https://example.com/archives/C0123ABC/p1712345678123456>',
      '<https://acme.slack.com/files/U1/F1/x.png>',
      '<https://acme.slack.com/archives/C0123ABC>',
      'https://acme.slack.com/archives/C0123ABC/p1712345678123456',
      '<http://acme.slack.com/archives/C0123ABC/p1712345678123456>',
      '<@U0123> <#C0123ABC|general>',
    ].join(' '))).toEqual([])
  })
})
