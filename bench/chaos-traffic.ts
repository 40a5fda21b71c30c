import { setTimeout as sleep } from 'node:timers/promises'
import { signedDelivery } from '../test/helpers/signed-delivery.ts'
import { conversationComment, pullRequest, review } from '../test/helpers/github-payloads.ts'

/** One signed delivery of the stream, with the id the chaos run tracks it by. */
interface ChaosDelivery {
  id: string
  body: string
  headers: Record<string, string>
}

/** A pull request's script: its deliveries in order, and the status line its message must end with. */
export interface PrScript {
  /** Unique across the run's repositories: the checks know a pull request by it. */
  number: number
  repository: string
  deliveries: ChaosDelivery[]
  finalStatus: string
}

export interface TrafficFigures {
  sent: number
  acknowledged: Set<string>
  duplicates: number
  redeliveries: number
  refused: number
  prs: PrScript[]
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!
const chance = (p: number) => Math.random() < p

/** The example payloads' repository (Codertocat/Hello-World) renamed: each repository has a channel of its own. */
function inRepository(payload: Record<string, any>, repository: string): Record<string, any> {
  payload.repository.name = repository
  payload.repository.full_name = `Codertocat/${repository}`
  const pr = payload.pull_request ?? payload.issue?.pull_request
  if (pr?.html_url) pr.html_url = String(pr.html_url).replace('/Hello-World/', `/${repository}/`)
  return payload
}

/**
 * Opened, then some of (carol approves, erin requests changes, dave and frank comment) in random order,
 * then merged or closed: the message must end with the status the last event implies.
 */
export function prScript(number: number, repository: string): PrScript {
  const payloads: Array<[string, Record<string, any>]> = [['pull_request', pullRequest('opened', number)]]
  const middle: Array<[string, Record<string, any>]> = []
  const approved = chance(0.6)
  const changes = chance(0.4)
  if (approved) middle.push(['pull_request_review', review('approved', number, 'carol')])
  if (changes) middle.push(['pull_request_review', review('changes_requested', number, 'erin')])
  const commenters = ['dave', 'frank'].filter(() => chance(0.5))
  for (const [i, who] of commenters.entries()) {
    const comment = conversationComment(number, who)
    comment.comment.id = number * 10 + i
    middle.push(['issue_comment', comment])
  }
  middle.sort(() => Math.random() - 0.5)
  for (const [i, [event, payload]] of middle.entries()) if (event === 'pull_request_review') payload.review.id = number * 10 + 5 + i
  const merged = chance(0.5)
  payloads.push(...middle, ['pull_request', pullRequest('closed', number, { merged })])
  const deliveries = payloads.map(([event, payload], i) => {
    const id = `chaos-${number}-${i}`
    return { id, ...signedDelivery('github', { event, payload: inRepository(payload, repository), deliveryId: id }) }
  })
  const status = [merged ? 'Merged' : 'Closed']
  if (approved) status.push('Approved by carol')
  if (changes) status.push('Changes requested by erin')
  if (commenters.length > 0) status.push(`${commenters.length} ${commenters.length === 1 ? 'comment' : 'comments'}`)
  return { number, repository, deliveries, finalStatus: status.join(' · ') }
}

async function send(url: string, delivery: ChaosDelivery): Promise<boolean> {
  try {
    const res = await fetch(`${url}/webhook/github`, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(15_000) })
    await res.arrayBuffer()
    return res.status === 200
  } catch {
    return false
  }
}

/**
 * Workers that each play one pull request's script after another until `until`: each delivery is sent to a
 * random live replica and sent again (same id and body, as the host redelivers) until one acknowledges it,
 * so a pull request's events are acknowledged in order. Pull requests take the repositories in turn. Some are sent to two replicas at once (exact
 * duplicates racing), and after a pull request ends one of its earlier deliveries is redelivered.
 */
export async function runTraffic(options: { urls: () => string[]; until: number; workers: number; gapMs: number; repositories: readonly string[] }): Promise<TrafficFigures> {
  const figures: TrafficFigures = { sent: 0, acknowledged: new Set(), duplicates: 0, redeliveries: 0, refused: 0, prs: [] }
  let nextNumber = 1
  const deliver = async (delivery: ChaosDelivery, copies: number) => {
    for (;;) {
      const urls = options.urls()
      const targets = urls.length === 0 ? [] : Array.from({ length: copies }, () => pick(urls))
      figures.sent += targets.length
      const answers = await Promise.all(targets.map((url) => send(url, delivery)))
      if (answers.some(Boolean)) return void figures.acknowledged.add(delivery.id)
      figures.refused += answers.length
      await sleep(200)
    }
  }
  const worker = async () => {
    while (Date.now() < options.until) {
      const script = prScript(nextNumber, options.repositories[nextNumber++ % options.repositories.length]!)
      figures.prs.push(script)
      for (const delivery of script.deliveries) {
        const copies = chance(0.15) ? 2 : 1
        if (copies === 2) figures.duplicates++
        await deliver(delivery, copies)
        await sleep(Math.random() * options.gapMs)
      }
      if (chance(0.1)) {
        figures.redeliveries++
        await deliver(pick(script.deliveries), 1)
      }
    }
  }
  await Promise.all(Array.from({ length: options.workers }, worker))
  return figures
}
