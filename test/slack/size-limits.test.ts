import { describe, expect, it } from 'vitest'
import type { LifecycleState, StoredLifecycle } from '../../machines/decide.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { escapeWithin, renderMessage, SLACK_LIMITS, type RenderedMessage } from '../../src/slack/render-message.ts'
import { sizeError } from '../helpers/fake-slack.ts'

/** Issue 11.7: whatever the git host sends, every block and the text are within Slack's sizes, and nothing is cut mid-token. */
function lifecycle(state: LifecycleState, context: Partial<PullRequestContext> = {}): StoredLifecycle {
  return {
    state,
    context: {
      provider: 'github', owner: 'acme', repo: 'api', number: 12, title: 'Add limits', url: 'https://github.com/acme/api/pull/12',
      author: 'bob', createdAt: '2026-11-20T09:30:00Z', approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [],
      reactions: [], ...context,
    },
  }
}

const blockTexts = (m: RenderedMessage) =>
  m.blocks.flatMap((b) => (b.type === 'section' ? [b.text.text] : b.type === 'context' ? b.elements.map((e) => e.text) : []))
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
/** Outside Slack's own tokens (`<…>`), every `&` starts one of the three escapes, and no `<` or `>` is left bare. */
const BROKEN_ESCAPE = /&(?!amp;|lt;|gt;)|[<>]/

function expectWithinLimits(message: RenderedMessage): void {
  expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.messageText)
  for (const text of blockTexts(message)) expect(text.length).toBeLessThanOrEqual(SLACK_LIMITS.blockText)
  // The fake Slack's own check, which the end-to-end test relies on, agrees.
  expect(sizeError(message.text, message.blocks)).toBeUndefined()
  for (const text of [message.text, ...blockTexts(message)]) {
    expect(text).not.toMatch(LONE_SURROGATE)
    const outsideTokens = text.replace(/<[@!][^<>]*>/g, '').replace(/<https:[^<>|]*\|/, '').replace(/>$/, '')
    expect(outsideTokens).not.toMatch(BROKEN_ESCAPE)
  }
}

const FAMILY = '👩‍👩‍👧‍👦' // one grapheme, eleven UTF-16 units
const HOSTILE = {
  'GitHub title at its 256 limit': 'T'.repeat(256),
  'a long Bitbucket title': 'Refactor the payment capture pipeline '.repeat(200),
  '100k characters': 'x'.repeat(100_000),
  '100k characters that all expand when escaped': '&<>'.repeat(33_334),
  'emoji families (ZWJ sequences)': FAMILY.repeat(10_000),
  'combining accents': 'e\u0301'.repeat(50_000),
  'astral characters': '𝒜'.repeat(50_000),
  'mrkdwn-looking text': '*bold* _it_ ~st~ `code` <@U123> <!here> |pipe| '.repeat(2_000),
}

describe('renderMessage within Slack sizes', () => {
  it.each(Object.entries(HOSTILE))('title: %s', (_name, title) => {
    for (const state of ['open', 'draft', 'merged', 'closed'] as const) {
      const message = renderMessage({ lifecycle: lifecycle(state, { title }), mentions: ['<@U0000ALICE>', '<!subteam^S0000TEAM>'] })
      expectWithinLimits(message)
      const [head] = blockTexts(message)
      // The mentions and the link survive whole; the title inside the link is what gets cut.
      expect(head).toMatch(/^<@U0000ALICE> <!subteam\^S0000TEAM> (\[(Merged|Closed)\] )?<https:\/\/github\.com\/acme\/api\/pull\/12\|PR #12: .+>$/)
    }
  })

  it('a title that fits is not cut: the longest GitHub allows (256) is shown whole', () => {
    const title = `${'a'.repeat(250)} & <b>`
    const message = renderMessage({ lifecycle: lifecycle('merged', { title }), mentions: ['<@U1>'] })
    expect(blockTexts(message)[0]).toBe('<@U1> [Merged] <https://github.com/acme/api/pull/12|PR #12: ~' + `${'a'.repeat(250)} &amp; &lt;b&gt;` + '~>')
    expect(message.text).not.toContain('…')
  })

  it('a cut title ends with an ellipsis, inside the strikethrough of an ended PR', () => {
    const message = renderMessage({ lifecycle: lifecycle('closed', { title: 'word '.repeat(2_000) }), mentions: [] })
    expect(blockTexts(message)[0]).toMatch(/ wo?r?d?…~>$/)
    expect(message.text).toMatch(/ wo?r?d?… \(acme\/api\) — Closed$/)
  })

  it('cuts an emoji family whole, never between its parts', () => {
    const cut = escapeWithin(FAMILY.repeat(500), 3000)
    expect(cut.endsWith(`${FAMILY}…`)).toBe(true)
    expect((cut.length - 1) % FAMILY.length).toBe(0)
  })

  it('long names: a Bitbucket display name, a long repository, 500 reviewers with GitHub-length logins', () => {
    const reviewers = Array.from({ length: 500 }, (_, i) => `reviewer-${String(i).padStart(3, '0')}-${'r'.repeat(26)}`)
    const message = renderMessage({
      lifecycle: lifecycle('open', {
        owner: 'o'.repeat(5_000), repo: 'r&'.repeat(5_000), author: 'Dana <Whitfield> & co '.repeat(1_000),
        approvedBy: reviewers, changesRequestedBy: reviewers.slice(0, 100), commentCount: 3,
      }),
      mentions: [],
    })
    expectWithinLimits(message)
    expect(blockTexts(message)[2]).toMatch(/^Approved by reviewer-000-r+, reviewer-001-.*…$/)
  })

  it('hundreds of configured mentions: tokens are kept whole, trailing ones left out so the title still shows', () => {
    const mentions = Array.from({ length: 400 }, (_, i) => `<!subteam^S${String(i).padStart(9, '0')}>`)
    const message = renderMessage({ lifecycle: lifecycle('open', { title: 'Add limits' }), mentions })
    expectWithinLimits(message)
    const [head] = blockTexts(message)
    expect(head).toContain('|PR #12: Add limits>')
    const kept = head!.match(/<!subteam\^S\d{9}>/g) ?? []
    expect(kept.length).toBeGreaterThan(100)
    expect(kept).toEqual(mentions.slice(0, kept.length))
  })

  it('a URL longer than any host sends is left out rather than cut; the title still shows', () => {
    const message = renderMessage({ lifecycle: lifecycle('open', { url: `https://github.com/${'a'.repeat(5_000)}` }), mentions: [] })
    expectWithinLimits(message)
    expect(blockTexts(message)[0]).toBe('PR #12: Add limits')
  })
})

describe('escapeWithin', () => {
  it('escapes text that fits, unchanged otherwise', () => {
    expect(escapeWithin('a & b', 9)).toBe('a &amp; b')
  })

  it('cuts before an escape rather than inside it', () => {
    expect(escapeWithin('&&&&', 7)).toBe('&amp;…')
    expect(escapeWithin('ab<cd', 6)).toBe('ab…')
  })

  it('trims the space before the ellipsis and never exceeds the limit', () => {
    expect(escapeWithin('abc def ghi', 5)).toBe('abc…')
    for (let max = 0; max < 20; max++) expect(escapeWithin('&é👍 x'.repeat(5), max).length).toBeLessThanOrEqual(max)
  })
})

describe('the fake Slack refuses what Slack refuses', () => {
  it('a block text over 3000 is invalid_blocks; a text over 40,000 is msg_too_long', () => {
    const section = (n: number) => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(n) } })
    const context = (n: number) => ({ type: 'context', elements: [{ type: 'mrkdwn', text: 'x'.repeat(n) }] })
    expect(sizeError('ok', [section(3000), context(3000)])).toBeUndefined()
    expect(sizeError('ok', [section(3001)])).toBe('invalid_blocks')
    expect(sizeError('ok', [context(3001)])).toBe('invalid_blocks')
    expect(sizeError('x'.repeat(40_001), [])).toBe('msg_too_long')
  })
})
