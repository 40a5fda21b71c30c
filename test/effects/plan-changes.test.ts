import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionKey } from '../../src/config/settings.ts'
import { DEFAULTS } from '../../src/config/settings.ts'
import { planChanges, planMessage, type ShownMessage } from '../../src/effects/plan-changes.ts'
import { renderMessage } from '../../src/slack/render-message.ts'

const reactions = { ...DEFAULTS.reactions }

function lifecycle(state: StoredLifecycle['state'], facts: { reactions?: ReactionKey[]; approvedBy?: string[]; title?: string; comments?: number } = {}): StoredLifecycle {
  return {
    state,
    context: {
      provider: 'github', owner: 'acme', repo: 'api', number: 7, title: facts.title ?? 'Add limits', url: 'https://github.com/acme/api/pull/7',
      author: 'bob', createdAt: '2026-11-20T09:30:00Z', approvedBy: facts.approvedBy ?? [], changesRequestedBy: [],
      commentCount: facts.comments ?? 0, botReviewers: [], reactions: facts.reactions ?? [],
    },
  } as StoredLifecycle
}

const shown = (l: StoredLifecycle, mentions: string[] = []): ShownMessage => ({ channel: 'C1', mentions, ts: '1.1', shown: l })

describe('planMessage', () => {
  it('a new message is posted with the final render, then gets every reaction of the final state', () => {
    const next = lifecycle('open', { approvedBy: ['carol'], reactions: ['approved', 'commented'], comments: 1 })
    expect(planMessage({ channel: 'C1', mentions: ['<@U1>'], ts: undefined, shown: undefined }, next, reactions)).toEqual([
      { type: 'post', message: renderMessage({ lifecycle: next, mentions: ['<@U1>'] }) },
      { type: 'addReaction', name: 'white_check_mark' },
      { type: 'addReaction', name: 'speech_balloon' },
    ])
  })

  it('a message that would look the same gets no call', () => {
    const l = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    expect(planMessage(shown(l), JSON.parse(JSON.stringify(l)) as StoredLifecycle, reactions)).toEqual([])
  })

  it('a visible change is one update; unchanged reactions are left alone', () => {
    const before = lifecycle('open', { reactions: ['commented'], comments: 1 })
    const next = lifecycle('open', { reactions: ['commented'], comments: 2 })
    expect(planMessage(shown(before), next, reactions)).toEqual([{ type: 'update', message: renderMessage({ lifecycle: next, mentions: [] }) }])
  })

  it('reactions follow the set difference, with the configured emoji names, added before removed', () => {
    const before = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    const next = lifecycle('merged', { reactions: ['approved', 'merged'], approvedBy: ['carol'] })
    const changes = planMessage(shown(before), next, { ...reactions, merged: 'tada' })
    expect(changes.map((c) => c.type)).toEqual(['update', 'addReaction'])
    expect(changes[1]).toEqual({ type: 'addReaction', name: 'tada' })
    const back = planMessage(shown(lifecycle('closed', { reactions: ['closed', 'commented'] })), lifecycle('open', { reactions: ['commented'] }), reactions)
    expect(back.filter((c) => c.type !== 'update')).toEqual([{ type: 'removeReaction', name: 'x' }])
  })

  it('renders each message with its own mentions', () => {
    const next = lifecycle('open', { title: 'New title' })
    const [update] = planMessage(shown(lifecycle('open'), ['<!here>']), next, reactions)
    expect(update).toEqual({ type: 'update', message: renderMessage({ lifecycle: next, mentions: ['<!here>'] }) })
  })
})

describe('planChanges', () => {
  it('brings every stored message to the final state, then announces in the new channels, keeping plans with nothing to do', () => {
    const next = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    const plans = planChanges({
      messages: [shown(next), { ...shown(lifecycle('open')), channel: 'C2' }],
      announceIn: [{ channel: 'C3', mentions: ['<@U3>'] }],
      next,
      reactions,
    })
    expect(plans.map((p) => [p.channel, p.ts, p.changes.map((c) => c.type)])).toEqual([
      ['C1', '1.1', []],
      ['C2', '1.1', ['update', 'addReaction']],
      ['C3', undefined, ['post', 'addReaction']],
    ])
    expect(plans[2]?.mentions).toEqual(['<@U3>'])
  })
})
