import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import { initialContext } from '../../machines/pull-request.machine.ts'
import { renderMessage } from '../../src/slack/render-message.ts'
import { prEvent } from '../machines/lifecycle-run.ts'

const lifecycle = (state: StoredLifecycle['state'], reviewing?: string[]): StoredLifecycle => ({
  state, context: { ...initialContext(prEvent('opened')), ...(reviewing ? { reviewing } : {}) },
})
const types = (l: StoredLifecycle, reviewButton: boolean) => renderMessage({ lifecycle: l, mentions: [], options: { reviewButton } }).blocks.map((b) => b.type)

describe('the review blocks of a message', () => {
  it('an open pull request gets the button only when it is on; the button opens the pull request and names it', () => {
    expect(types(lifecycle('open'), false)).not.toContain('actions')
    const blocks = renderMessage({ lifecycle: lifecycle('open'), mentions: [], options: { reviewButton: true } }).blocks
    expect(blocks.at(-1)).toEqual({
      type: 'actions', block_id: 'prherald_review',
      elements: [{
        type: 'button', action_id: 'prherald_start_review', text: { type: 'plain_text', text: 'Start review', emoji: true },
        value: 'github:acme/api#7', url: 'https://github.com/acme/api/pull/7',
      }],
    })
  })

  it.each(['draft', 'merged', 'closed'] as const)('a %s pull request has no button', (state) => {
    expect(types(lifecycle(state), true)).not.toContain('actions')
  })

  it('shows who is reviewing while open or a draft, before the button; not once ended', () => {
    const open = renderMessage({ lifecycle: lifecycle('open', ['U1', 'W2']), mentions: [], options: { reviewButton: true } }).blocks
    expect(open.at(-2)).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: ':eyes: <@U1>, <@W2> reviewing' }] })
    expect(JSON.stringify(renderMessage({ lifecycle: lifecycle('draft', ['U1']), mentions: [] }).blocks)).toContain(':eyes: <@U1> reviewing')
    expect(JSON.stringify(renderMessage({ lifecycle: lifecycle('merged', ['U1']), mentions: [] }).blocks)).not.toContain('reviewing')
  })

  it('a compact dependency bump carries the button too', () => {
    const bump = lifecycle('open')
    bump.context.dependencyBump = { bot: 'dependabot[bot]', security: false, compact: true }
    expect(types(bump, true)).toEqual(['section', 'actions'])
  })
})
