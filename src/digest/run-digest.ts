import type { DigestSettings } from '../config/settings.ts'
import type { HostMappings } from '../routing/resolve-route.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Logger } from '../log/logger.ts'
import type { Outbox } from '../slack/outbox.ts'
import type { JobClaims, MessageStore } from '../store/store.ts'
import { buildDigests, isStuck, type ChannelDigest } from './build-digest.ts'
import { parseHolidayCalendar } from '../config/digest-calendar.ts'
import { digestDay } from './digest-day.ts'
import { candidatesBySchedule, type ScheduledCandidate } from './digest-schedules.ts'
import { postDigest } from './post-digest.ts'

export interface DigestRunDeps {
  store: MessageStore & JobClaims
  /** Every digest post goes through the outbox (src/slack/outbox.ts). */
  outbox: Pick<Outbox, 'digest'>
  pacer: SlackPacer
  logger: Logger
  mappings: HostMappings
  digest: DigestSettings
}

export interface DigestRunRequest {
  /** The moment the digest is made as of (unix ms): its day, and what counts as before that day. */
  at: number
  /** The schedules to run; undefined: every schedule that has pull requests (the command line). */
  schedules?: readonly string[]
  /** Only these channel IDs; undefined: every channel. */
  channels?: readonly string[]
  dryRun: boolean
  /** Post even in a channel that already had its digest today (`prherald-digest --force`). */
  force?: boolean
}

/** What the run did, as lines for the command line, and whether every channel got its digest. */
export interface DigestRunResult {
  date: string
  lines: string[]
  failedChannels: number
  postedChannels: number
  /** Channels that had their digest for the day already (whatever asked for it) and got none now. */
  alreadyPosted: number
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * One digest run: works out the day in digest.timezone (a weekend or holiday is skipped with a log line and no
 * Slack call), builds each schedule's digests from the open messages, and posts them
 * (or, in a dry run, only describes them). A channel whose posting fails does not stop the others.
 */
export async function runDigest(deps: DigestRunDeps, request: DigestRunRequest): Promise<DigestRunResult> {
  const { digest, logger } = deps
  const day = digestDay(request.at, digest.timezone, digest.holidays ? parseHolidayCalendar(digest.holidays) : undefined)
  const result: DigestRunResult = { date: day.date, lines: [], failedChannels: 0, postedChannels: 0, alreadyPosted: 0 }
  if (day.skip) {
    const holiday = day.skip.reason === 'holiday' ? day.skip.name : undefined
    logger.info('skipped digest', { schedule: request.schedules?.join(', '), date: day.date, reason: day.skip.reason, holiday })
    result.lines.push(`skipped digest for ${day.date}: ${day.skip.reason}${holiday ? ` (${holiday})` : ''}`)
    return result
  }

  const groups = candidatesBySchedule(await deps.store.openMessages(), deps.mappings, digest)
  const schedules = request.schedules ?? [...groups.keys()]
  let listed = 0
  for (const schedule of schedules) {
    const candidates = (groups.get(schedule) ?? []).filter((c) => !request.channels || request.channels.includes(c.channel))
    const digests = buildDigests({ candidates, startOfDay: day.startOfDay, now: request.at, leaveOut: [] },
      (channel) => (digest.mention ? channelMentions(candidates, channel, day.startOfDay) : []))
    for (const channelDigest of digests) {
      listed += channelDigest.count
      result.lines.push(`${channelDigest.channel}: ${plural(channelDigest.count, 'pull request')} (schedule ${schedule})`)
      if (request.dryRun) {
        result.lines.push(...describe(channelDigest))
        continue
      }
      // One digest per channel per day, whatever asks for it (the schedule, the command, a repeated command).
      if (!request.force && !(await deps.store.claimRun(`digest-channel:${channelDigest.channel}`, day.date))) {
        logger.info('digest already posted in the channel today', { schedule, date: day.date, channel: channelDigest.channel })
        result.alreadyPosted++
        result.lines.push(`${channelDigest.channel}: already had its digest for ${day.date}; --force posts another`)
        continue
      }
      const posted = await postDigest(deps, channelDigest, { schedule, date: day.date })
      if (posted) result.postedChannels++
      else {
        result.failedChannels++
        result.lines.push(`${channelDigest.channel}: failed, see the server log; --force posts it again today`)
      }
    }
    if (!request.dryRun) logger.info('digest finished', { schedule, date: day.date, channels: digests.length, pull_requests: digests.reduce((n, d) => n + d.count, 0) })
  }
  result.lines.push(listed === 0
    ? `nothing stuck on ${day.date}: no digest to post`
    : request.dryRun
      ? `dry run: ${plural(listed, 'pull request')} would be listed for ${day.date}; nothing posted`
      : `posted the digest for ${day.date} in ${plural(result.postedChannels, 'channel')}${result.failedChannels ? `; ${plural(result.failedChannels, 'channel')} failed` : ''}`)
  return result
}

/** The mentions the channel's stuck pull requests' messages carry, each once. */
function channelMentions(candidates: readonly ScheduledCandidate[], channel: string, startOfDay: number): string[] {
  const stuck = candidates.filter((c) => c.channel === channel && isStuck(c, startOfDay, []))
  return [...new Set(stuck.flatMap((c) => c.mentions))]
}

/** A dry run's picture of one channel's digest: the parent, then each reply's lines. */
function describe(channelDigest: ChannelDigest): string[] {
  return [
    `  ${channelDigest.parent.text}`,
    ...channelDigest.replies.flatMap((reply) => reply.text.split('\n').map((line) => `    ${line}`)),
  ]
}
