import { randomBytes } from 'node:crypto'
import { formatChecks, type CheckResult } from '../checks/check-result.ts'
import { callSlack, type SlackCheckOptions } from '../checks/slack-api.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { isPrheraldError } from '../errors.ts'
import { readChannel, type ChannelMessage } from './channel-history.ts'
import { poll } from './poll.ts'
import { checkHealth, postDelivery } from './post-to-service.ts'
import type { SmokeRun, SmokeStep } from '../hosts/contract.ts'
import { hostOf } from '../hosts/registry.ts'
import { smokeTitle } from '../hosts/smoke-delivery.ts'

export interface SmokeDeps {
  /** The service's public base URL, without a trailing slash. */
  url: string
  provider: Provider
  owner: string
  repo: string
  /** The channel the repository is mapped to; where the message must appear. */
  channel: string
  /** Every channel the repository posts in (`channel` among them): the test's messages are deleted in each. */
  channels: readonly string[]
  webhookSecret: string
  slack: SlackCheckOptions
  /** The emoji for `approved` and `merged`, when --reactions drives them. */
  reactions: { approved: string; merged: string } | undefined
  timeoutMs: number
  intervalMs: number
  print: (line: string) => void
}

/**
 * prherald-smoke: healthz, a signed `opened`, the message in the channel, optionally an approval and a merge
 * with their reactions, then the final `closed`, which the message shows before prherald-smoke deletes it.
 * Prints each step as it completes; returns whether every step passed.
 */
export async function runSmoke(deps: SmokeDeps): Promise<boolean> {
  const target = `${deps.owner}/${deps.repo}`
  const run: SmokeRun = { owner: deps.owner, repo: deps.repo, runId: randomBytes(4).toString('hex'), createdAt: new Date().toISOString() }
  const title = smokeTitle(run)
  let ok = true
  const report = (result: CheckResult): boolean => {
    for (const line of formatChecks([result])) deps.print(line)
    if (result.status === 'FAIL') ok = false
    return result.status !== 'FAIL'
  }
  const send = (step: SmokeStep) => postDelivery(deps.url, deps.provider, hostOf(deps.provider).smokeDelivery(run, step, deps.webhookSecret), `deliver ${step}`, target, deps.timeoutMs)
  const watch = <T>(find: (messages: ChannelMessage[]) => T | undefined) =>
    poll(async () => find(await readChannel(deps.slack, deps.channel)), deps)

  if (!report(await checkHealth(deps.url, deps.timeoutMs))) return false
  if (!report(await send('opened'))) return false

  let message: ChannelMessage | undefined
  try {
    message = await watch((messages) => messages.find((m) => m.text.includes(title)))
    report(message
      ? { name: 'message', target: deps.channel, status: 'OK', reason: `"${title}" appeared (ts ${message.ts})` }
      : {
          name: 'message', target: deps.channel, status: 'FAIL', reason: `no message in ${deps.channel} within ${deps.timeoutMs / 1000} s`,
          fix: 'the server accepted the delivery but posted nothing: look in its log for "slack rejected the change" (the fix is on that line)',
        })
  } catch (error) {
    report(slackFailure('message', deps.channel, error))
  }

  if (message && deps.reactions) {
    const posted = message
    for (const [step, emoji] of [['approved', deps.reactions.approved], ['merged', deps.reactions.merged]] as const) {
      if (!report(await send(step))) break
      const seen = await watch((messages) => (messages.find((m) => m.ts === posted.ts)?.reactions.includes(emoji) ? true : undefined)).catch((e: unknown) => e)
      const passed = seen === true
      report(passed
        ? { name: `reaction ${step}`, target: deps.channel, status: 'OK', reason: `:${emoji}: added` }
        : seen instanceof Error ? slackFailure(`reaction ${step}`, deps.channel, seen)
          : { name: `reaction ${step}`, target: deps.channel, status: 'FAIL', reason: `no :${emoji}: within ${deps.timeoutMs / 1000} s`, fix: 'look in the server log for "slack rejected the change"; the bot needs the reactions:write scope' })
      if (!passed) break
    }
  }

  // Always sent once `opened` was accepted: the test pull request then ends in the service like any other.
  if (!report(await send('closed')) || !message) return false
  const posted = message
  const ended = await watch((messages) => (/ — (Closed|Merged)\b/.test(messages.find((m) => m.ts === posted.ts)?.text ?? '') ? true : undefined)).catch(() => undefined)
  if (!ended) {
    report({
      name: 'closed', target: deps.channel, status: 'FAIL', reason: `the message did not show the pull request ended within ${deps.timeoutMs / 1000} s`,
      fix: 'the server accepted the delivery but did not update the message: look in its log for "slack rejected the change"',
    })
  }
  // The test leaves no message: prherald-smoke deletes its own in each channel the repository posts in (the
  // service's closed rows of it go after cleanup.message_ttl_days).
  const left: string[] = []
  for (const channel of deps.channels) {
    const own = await readChannel(deps.slack, channel).then((messages) => messages.filter((m) => m.text.includes(title)).map((m) => m.ts), () => undefined)
    if (!own) left.push(`${channel} (not readable)`)
    for (const ts of own ?? []) if (!(await callSlack(deps.slack, 'chat.delete', { channel, ts }).then((a) => a.data.ok === true, () => false))) left.push(`${channel} ${ts}`)
  }
  report(left.length === 0
    ? { name: 'cleanup', target: deps.channel, status: 'OK', reason: 'prherald-smoke deleted the test message (chat.delete)' }
    : { name: 'cleanup', target: deps.channel, status: 'FAIL', reason: `not deleted: ${left.join(', ')}`, fix: 'delete the test message by hand; the bot token deletes its own messages with chat:write' })
  return ok
}

function slackFailure(name: string, target: string, error: unknown): CheckResult {
  if (isPrheraldError(error)) return { name, target, status: 'FAIL', reason: error.message, fix: error.fix }
  return { name, target, status: 'FAIL', reason: `unexpected error: ${error instanceof Error ? error.message : String(error)}` }
}
