import { expect, it } from 'vitest'
import { SLACK_RATE_LIMITS, type SlackMethod } from '../../src/slack/rate-limits.ts'
import { SLACK_PUBLISHED_LIMITS } from '../helpers/slack-published-limits.ts'

// The pacer's table against the fake Slack's own reading of Slack's pages (test/helpers/slack-published-limits.ts):
// a budget above Slack's floor, or a burst above what its tier's words tolerate, would be refused by a Slack
// that enforced no more than it publishes.
it.each(Object.keys(SLACK_RATE_LIMITS) as SlackMethod[])('%s: the pacer spends no more than Slack publishes', (method) => {
  const published = SLACK_PUBLISHED_LIMITS[method]
  expect(published, `${method} has no row in the fake Slack's table`).toBeDefined()
  for (const limit of SLACK_RATE_LIMITS[method]) {
    const slack = published!.find((p) => p.per === limit.scope)
    expect(slack, `${method}: Slack publishes no ${limit.scope} limit`).toBeDefined()
    expect(limit.perMinute).toBeLessThanOrEqual(slack!.perMinute)
    expect(limit.burst).toBeLessThanOrEqual(slack!.burst)
  }
})
