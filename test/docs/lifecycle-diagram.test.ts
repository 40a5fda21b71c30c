import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setup } from 'xstate'
import {
  DIAGRAM_END, DIAGRAM_START, LIFECYCLE_DIAGRAM_OPTIONS, diagramBlock, renderLifecycleDiagram, spliceDiagram,
} from '../../machines/machine-diagram.ts'
import { pullRequestMachine } from '../../machines/pull-request.machine.ts'
import { packageRoot } from '../../src/package-root.ts'

const doc = () => readFileSync(join(packageRoot(), 'docs/lifecycle.md'), 'utf8')

describe('docs/lifecycle.md', () => {
  it('carries exactly the diagram the machine generates (run `npm run docs:diagram` after changing the machine)', () => {
    const text = doc()
    const start = text.indexOf(DIAGRAM_START)
    const end = text.indexOf(DIAGRAM_END)
    expect(start, 'diagram start marker').toBeGreaterThanOrEqual(0)
    expect(end, 'diagram end marker').toBeGreaterThan(start)
    const committed = text.slice(start, end + DIAGRAM_END.length)
    expect(committed).toBe(diagramBlock(renderLifecycleDiagram(pullRequestMachine, LIFECYCLE_DIAGRAM_OPTIONS)))
  })

  it('has a row in its states table for every state of the machine', () => {
    const text = doc()
    for (const state of Object.keys(pullRequestMachine.root.states)) expect(text).toContain(`| \`${state}\` |`)
  })
})

describe('renderLifecycleDiagram', () => {
  const machine = setup({
    types: { events: {} as { type: 'go' } | { type: 'poke' } | { type: 'stop' } },
    actions: { say: () => {}, note: () => {}, mark: (_, _params: { flag: string }) => {} },
    guards: { ready: () => true, late: () => false },
  }).createMachine({
    id: 'm',
    initial: 'idle',
    on: { stop: { target: '.done', actions: 'say' }, poke: { actions: ['note', 'say'] } },
    states: {
      idle: {
        on: {
          go: [{ guard: 'late', actions: { type: 'mark', params: { flag: 'late' } } }, { guard: 'ready', target: 'busy' }, { actions: 'say' }],
          poke: { guard: 'ready', actions: 'say' },
        },
      },
      busy: { entry: { type: 'mark', params: { flag: 'on' } }, always: { guard: 'late', target: 'idle' } },
      done: {},
    },
  })

  it('orders candidates, negates earlier guards, falls back to the parent, groups events and marks final states', () => {
    expect(renderLifecycleDiagram(machine, { shownActions: ['say', 'mark'] })).toBe([
      'stateDiagram-v2',
      '  [*] --> idle',
      '  idle --> busy : go [!late && ready]',
      '  idle --> done : stop / say',
      '  idle --> idle : go [!late && !ready] / say',
      '  idle --> idle : poke [!ready] / say',
      '  idle --> idle : go [late] / mark(late)',
      '  idle --> idle : poke [ready] / say',
      '  busy : entry mark(on)',
      '  busy --> idle : always [late]',
      '  busy --> done : stop / say',
      '  busy --> busy : poke / say',
      '  done --> done : poke, stop / say',
      '  note right of done : final, later events only update the message',
      '',
    ].join('\n'))
  })

  it('replaces only the block between the markers and refuses a document without them', () => {
    const text = `intro\n${DIAGRAM_START}\nold\n${DIAGRAM_END}\noutro\n`
    expect(spliceDiagram(text, 'stateDiagram-v2\n')).toBe(`intro\n${diagramBlock('stateDiagram-v2\n')}\noutro\n`)
    expect(() => spliceDiagram('no markers', 'x')).toThrow(/markers/)
  })
})
