import { describe, expect, it } from 'vitest'
import { mappingCheck } from '../../src/checks/mapping-check.ts'
import type { Mappings } from '../../src/config/schema.ts'

const mappings: Mappings = {
  acme: {
    '*': { channel: 'C0123456789', mentions: ['<@U0123ABCD>'] },
    api: { channel: 'C0234567890', mentions: [] },
    mono: { paths: { 'billing/': { channel: 'C0456789012' } } },
  },
}

// mapping is pure and has no SKIP: an entry either resolves to well-formed channels or it does not.
describe('mapping', () => {
  it('is OK for a repository with its own channel', () => {
    expect(mappingCheck(mappings, 'acme', 'api').result).toEqual({ name: 'mapping', target: 'acme/api', status: 'OK', reason: 'channel C0234567890, 0 mentions' })
  })

  it('is OK for a repository that inherits its channel from "*", saying so', () => {
    const { result, route } = mappingCheck(mappings, 'Acme', 'other')
    expect(result).toMatchObject({ status: 'OK', reason: 'channel C0123456789 (from Acme/*), 1 mention' })
    expect(route?.source).toBe('wildcard')
    expect(mappingCheck(mappings, 'acme', 'mono').result.reason).toBe('channel C0123456789, 1 mention, 1 path rule')
  })

  it('FAILs for a repository no entry covers, with the key to add', () => {
    const { result, route } = mappingCheck(mappings, 'globex', 'api')
    expect(route).toBeUndefined()
    expect(result).toMatchObject({ status: 'FAIL', reason: 'no mapping entry for globex/api and no "*" entry for globex' })
    expect(result.fix).toContain('mappings.globex.api.channel')
  })

  it('FAILs for a malformed channel ID, path rules included', () => {
    const bad: Mappings = { acme: { api: { channel: 'C0234567890', paths: { 'web/': { channel: 'general' } } } } }
    const { result } = mappingCheck(bad, 'acme', 'api')
    expect(result).toMatchObject({ status: 'FAIL', reason: 'malformed channel ID general' })
    expect(result.fix).toContain('channel ID')
  })
})
