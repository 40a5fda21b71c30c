import type { FakeSlack } from '../test/helpers/fake-slack.ts'
import type { PrScript } from './chaos-traffic.ts'

/** What the database holds about the deliveries at the end. */
export interface DeliveryRows {
  applied: Set<string>
  pending: number
  parked: number
  /** Each pull request's row: its lifecycle state and Slack ts (empty: ended before it was announced). */
  messages: Map<number, { state: string; ts: string }>
}

export interface ChaosVerdict {
  lost: string[]
  duplicated: string[]
  notFinal: string[]
  /** Pull requests whose end reached prherald before their announcement did: no message, by design (docs/reliability.md, 11.1). */
  endedUnannounced: number
  violations: string[]
}

/**
 * The end checks of the chaos run: every acknowledged delivery applied, nothing pending or parked, each
 * pull request with exactly one message showing the status its last event implies (or none, when its end
 * reached prherald before its announcement and the database says so), and no two identical replies in a thread.
 */
export function checkChaos(slack: FakeSlack, rows: DeliveryRows, acknowledged: Set<string>, prs: PrScript[], unexpectedExits: string[]): ChaosVerdict {
  const lost = [...acknowledged].filter((id) => !rows.applied.has(id))
  const duplicated: string[] = []
  const notFinal: string[] = []
  let endedUnannounced = 0
  const parents = [...slack.messages.values()].filter((m) => m.threadTs === undefined)
  for (const pr of prs) {
    // Only a pull request whose every delivery was acknowledged has a known final state.
    if (!pr.deliveries.every((d) => acknowledged.has(d.id))) continue
    const messages = parents.filter((m) => m.text.startsWith(`PR #${pr.number}: `))
    const row = rows.messages.get(pr.number)
    if (messages.length === 0 && row?.state === 'ended' && row.ts === '') {
      endedUnannounced++
      continue
    }
    if (messages.length !== 1) {
      (messages.length > 1 ? duplicated : notFinal).push(`#${pr.number}: ${messages.length} messages (${messages.map((m) => m.ts).join(', ')}), database row ${JSON.stringify(row)}`)
      continue
    }
    const message = messages[0]!
    const status = message.text.slice(message.text.lastIndexOf(' — ') + 3)
    if (status !== pr.finalStatus) notFinal.push(`#${pr.number}: shows "${status}", expected "${pr.finalStatus}"`)
    const replies = slack.repliesTo(message.channel, message.ts).map((r) => r.text)
    const twice = replies.filter((text, i) => replies.indexOf(text) !== i)
    if (twice.length > 0) duplicated.push(`#${pr.number}: thread reply twice: ${twice.join('; ')}`)
  }
  const violations = [
    ...(lost.length > 0 ? [`${lost.length} acknowledged deliveries not applied (${lost.slice(0, 5).join(', ')})`] : []),
    ...(rows.pending > 0 ? [`${rows.pending} deliveries still pending`] : []),
    ...(rows.parked > 0 ? [`${rows.parked} deliveries parked`] : []),
    ...duplicated.slice(0, 10).map((d) => `duplicated ${d}`),
    ...notFinal.slice(0, 10).map((d) => `not final ${d}`),
    ...unexpectedExits.map((e) => `a replica exited on its own: ${e}`),
  ]
  return { lost, duplicated, notFinal, endedUnannounced, violations }
}
