import { describe, expect, it } from 'vitest'
import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionKey, ReactionSettings } from '../../src/config/settings.ts'
import { planChanges, planMessage, type ShownMessage } from '../../src/worker/plan-changes.ts'
import { DEFAULT_REACTIONS } from '../../src/config/reactions.ts'
import { renderMessage } from '../../src/slack/render-message.ts'

const reactions: ReactionSettings = DEFAULT_REACTIONS
const names = (keys: ReactionKey[]) => keys.map((k) => reactions.names[k])

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

/** A posted message showing `l`, carrying the default emoji of its reaction keys (or `carried`). */
const shown = (l: StoredLifecycle, mentions: string[] = [], carried = names(l.context.reactions)): ShownMessage =>
  ({ channel: 'C1', mentions, ts: '1.1', shown: l, reactions: carried })
const fresh: ShownMessage = { channel: 'C1', mentions: ['<@U1>'], ts: undefined, shown: undefined, reactions: [] }

describe('planMessage', () => {
  it('a new message is posted with the final render, then gets every emoji of the final state', () => {
    const next = lifecycle('open', { approvedBy: ['carol'], reactions: ['approved', 'commented'], comments: 1 })
    const plan = planMessage(fresh, next, reactions)
    expect(plan.changes).toEqual([
      { type: 'post', message: renderMessage({ lifecycle: next, mentions: ['<@U1>'] }) },
      { type: 'addReaction', name: 'white_check_mark' },
      { type: 'addReaction', name: 'speech_balloon' },
    ])
    expect(plan.reactions).toEqual(['white_check_mark', 'speech_balloon'])
  })

  it('a message that would look the same gets no call', () => {
    const l = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    expect(planMessage(shown(l), JSON.parse(JSON.stringify(l)) as StoredLifecycle, reactions).changes).toEqual([])
  })

  it('a visible change is one update; unchanged emoji are left alone', () => {
    const before = lifecycle('open', { reactions: ['commented'], comments: 1 })
    const next = lifecycle('open', { reactions: ['commented'], comments: 2 })
    expect(planMessage(shown(before), next, reactions).changes).toEqual([{ type: 'update', message: renderMessage({ lifecycle: next, mentions: [] }) }])
  })

  it('emoji follow the set difference, with the configured names, added before removed', () => {
    const before = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    const next = lifecycle('merged', { reactions: ['approved', 'merged'], approvedBy: ['carol'] })
    const plan = planMessage(shown(before), next, { ...reactions, names: { ...reactions.names, merged: 'tada' } })
    expect(plan.changes.map((c) => c.type)).toEqual(['update', 'addReaction'])
    expect(plan.changes[1]).toEqual({ type: 'addReaction', name: 'tada' })
    const back = planMessage(shown(lifecycle('closed', { reactions: ['closed', 'commented'] })), lifecycle('open', { reactions: ['commented'] }), reactions)
    expect(back.changes.filter((c) => c.type !== 'update')).toEqual([{ type: 'removeReaction', name: 'x' }])
  })

  it('a renamed emoji is swapped: the message carries the old name, the state calls for the new one', () => {
    const l = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    const renamed = { ...reactions, names: { ...reactions.names, approved: 'thumbsup' } }
    expect(planMessage(shown(l), l, renamed).changes).toEqual([
      { type: 'addReaction', name: 'thumbsup' },
      { type: 'removeReaction', name: 'white_check_mark' },
    ])
  })

  it('reactions turned off: a new message gets none, an existing one loses the ones it carries', () => {
    const off = { ...reactions, enabled: false }
    const l = lifecycle('open', { reactions: ['approved'], approvedBy: ['carol'] })
    expect(planMessage(fresh, l, off).changes.map((c) => c.type)).toEqual(['post'])
    expect(planMessage(shown(l), l, off).changes).toEqual([{ type: 'removeReaction', name: 'white_check_mark' }])
  })

  it('new_pr, when configured, is added first on the post and kept afterwards', () => {
    const withNew = { ...reactions, newPr: 'new' }
    const l = lifecycle('open', { reactions: ['commented'], comments: 1 })
    expect(planMessage(fresh, l, withNew).reactions).toEqual(['new', 'speech_balloon'])
    expect(planMessage(shown(l, [], ['new', 'speech_balloon']), l, withNew).changes).toEqual([])
  })

  it('renders each message with its own mentions', () => {
    const next = lifecycle('open', { title: 'New title' })
    const [update] = planMessage(shown(lifecycle('open'), ['<!here>']), next, reactions).changes
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
