import { describe, expect, it } from 'vitest'
import { LOGGED_HEADER_MAX } from '../../src/http/clip-header.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { useGithubService } from '../helpers/use-github-service.ts'
import { parseExposition, sampleValue } from '../metrics/parse-exposition.ts'

/**
 * Issue 30.6: header values of unauthenticated requests reach the log cut to a short length, one line per
 * refused request, and every refusal is counted in /metrics by its reason.
 */
const t = useGithubService()

describe('unauthenticated header values in the log', () => {
  it('cuts a 12 KB delivery id and a 2 KB event name, logs one line per refused request and counts each', async () => {
    const before = t.service.logs.length
    const count = 40
    for (let i = 0; i < count; i++) {
      const res = await deliver(t.service.url, 'github', {
        event: `ping${'E'.repeat(2000)}`, payload: githubExample('ping'), secret: 'not-the-secret', deliveryId: `${i}-${'D'.repeat(12_000)}`,
      })
      expect(res.status).toBe(401)
    }
    const lines = t.service.logs.slice(before)
    const refused = t.service.entries().slice(before).filter((e) => e.msg === 'rejected webhook delivery')
    expect(refused).toHaveLength(count)
    // Nothing else was logged for them: one line per refused request.
    expect(lines).toHaveLength(count)
    for (const entry of refused) {
      expect(String(entry.delivery_id).length).toBeLessThanOrEqual(LOGGED_HEADER_MAX + 1)
      expect(String(entry.event).length).toBeLessThanOrEqual(LOGGED_HEADER_MAX + 1)
      expect(String(entry.delivery_id)).toMatch(/^\d+-D+…$/)
    }
    expect(lines.every((line) => line.length < 1_000)).toBe(true)
    const samples = parseExposition(await (await fetch(t.service.metricsUrl)).text())
    expect(sampleValue(samples, 'prherald_deliveries_total', { result: 'rejected', reason: 'bad_signature' })).toBe(count)
  })

  it('keeps a real delivery id whole', async () => {
    const before = t.service.entries().length
    await deliver(t.service.url, 'github', { event: 'ping', payload: githubExample('ping'), secret: 'not-the-secret', deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958' })
    expect(t.service.entries().slice(before)).toEqual([expect.objectContaining({ msg: 'rejected webhook delivery', delivery_id: '72d3162e-cc78-11e3-81ab-4c9367dc0958', event: 'ping' })])
  })
})
