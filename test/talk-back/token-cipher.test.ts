import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { readTokenCipher } from '../../src/talk-back/token-cipher.ts'
import { newTokenKey } from '../helpers/talk-back-setup.ts'

/** Issue 33.1: tokens at rest under PRHERALD_TOKEN_KEY, AES-256-GCM, with a key id and a previous key. */
const key = newTokenKey
const failure = (run: () => unknown) => { try { run() } catch (e) { return e } throw new Error('expected a failure') }

describe('token cipher', () => {
  it('is off without a key, and refuses a key that is not 32 bytes of base64 without showing it', () => {
    expect(readTokenCipher({})).toBeUndefined()
    const short = randomBytes(16).toString('base64')
    const error = failure(() => readTokenCipher({ PRHERALD_TOKEN_KEY: short }))
    expect(isPrheraldError(error, 'config_invalid')).toBe(true)
    expect((error as Error).message).toBe('PRHERALD_TOKEN_KEY must be 32 bytes in base64; it decodes to 16 bytes')
    expect((error as Error).message).not.toContain(short)
    expect((failure(() => readTokenCipher({ PRHERALD_TOKEN_KEY: 'not base64!' })) as Error).message).toContain('decodes to 0 bytes')
    expect((failure(() => readTokenCipher({ PRHERALD_TOKEN_KEY_PREVIOUS: key() })) as Error).message).toBe('PRHERALD_TOKEN_KEY_PREVIOUS is set without PRHERALD_TOKEN_KEY')
  })

  it('seals so that only the same key and the same row open it', () => {
    const cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: key() })!
    const sealed = cipher.seal('ghu_secret', 'row-1')
    expect(sealed.keyId).toBe(cipher.keyId)
    expect(sealed.sealed).not.toContain('ghu_secret')
    expect(cipher.seal('ghu_secret', 'row-1').sealed).not.toBe(sealed.sealed)
    expect(cipher.open(sealed.keyId, sealed.sealed, 'row-1')).toBe('ghu_secret')
    expect(isPrheraldError(failure(() => cipher.open(sealed.keyId, sealed.sealed, 'row-2')), 'database')).toBe(true)
    expect(isPrheraldError(failure(() => readTokenCipher({ PRHERALD_TOKEN_KEY: key() })!.open(sealed.keyId, sealed.sealed, 'row-1')), 'config_invalid')).toBe(true)
  })

  it('opens what the previous key sealed, and seals only with the current one', () => {
    const old = key()
    const before = readTokenCipher({ PRHERALD_TOKEN_KEY: old })!
    const sealed = before.seal('glpat', 'row')
    const after = readTokenCipher({ PRHERALD_TOKEN_KEY: key(), PRHERALD_TOKEN_KEY_PREVIOUS: old })!
    expect(after.keyId).not.toBe(before.keyId)
    expect(after.open(sealed.keyId, sealed.sealed, 'row')).toBe('glpat')
    expect(after.seal('glpat', 'row').keyId).toBe(after.keyId)
  })

  it('opens only a full 16-byte tag: a tag cut short is refused by prherald, whatever the Node version', () => {
    // Node 22 and 24 accept a GCM tag of 4 to 16 bytes and check only its first bytes (a warning, DEP0182); Node 26
    // refuses on its own. The refusal must be prherald's own, before the decipher, so no Node version decides it.
    const cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: key() })!
    const sealed = cipher.seal('ghu_secret', 'row')
    const [iv, tag, body] = sealed.sealed.split('.')
    const short = [iv, Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url'), body].join('.')
    const error = failure(() => cipher.open(sealed.keyId, short, 'row'))
    expect(isPrheraldError(error, 'database')).toBe(true)
    expect(String((error as Error).cause)).toBe('Error: the tag is 4 bytes, not 16')
    expect(cipher.open(sealed.keyId, sealed.sealed, 'row')).toBe('ghu_secret')
  })
})
