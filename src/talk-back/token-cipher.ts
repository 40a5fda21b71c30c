import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { PrheraldError } from '../errors.ts'
import type { Env } from '../hosts/contract.ts'

/**
 * People's host tokens at rest: AES-256-GCM with PRHERALD_TOKEN_KEY (32 random bytes, base64). Each sealed
 * value carries the id of its key (a digest of the key, so every replica names it alike and the id tells
 * nothing of it); PRHERALD_TOKEN_KEY_PREVIOUS still opens what an earlier key sealed, and the vault re-seals
 * such a row under the current key at its next use. The row's identity is the additional data: a sealed
 * value copied onto another person's row does not open.
 */
export interface TokenCipher {
  /** The current key's id. */
  readonly keyId: string
  seal(plain: string, boundTo: string): { keyId: string; sealed: string }
  /** Whether a value sealed under this key id can be opened: the current key's, or the previous one's. */
  opens(keyId: string): boolean
  /** Throws when the key is neither the current nor the previous one, or the value was tampered with. */
  open(keyId: string, sealed: string, boundTo: string): string
}

export const TOKEN_KEY = 'PRHERALD_TOKEN_KEY'
export const PREVIOUS_TOKEN_KEY = 'PRHERALD_TOKEN_KEY_PREVIOUS'

const FIX = 'generate one with `openssl rand -base64 32` and set it; keep it secret and keep it: tokens sealed with a lost key need every person to link again'

function readKey(env: Env, name: string): Buffer | undefined {
  const text = env[name]?.trim()
  if (!text) return undefined
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0)
  if (key.length !== 32) {
    // The length only: never the value.
    throw new PrheraldError('config_invalid', `${name} must be 32 bytes in base64; it decodes to ${key.length} bytes`, { fix: FIX })
  }
  return key
}

/** GCM's full tag, what seal() writes (getAuthTag's default) and all that open() accepts. */
const TAG_BYTES = 16

const idOf = (key: Buffer) => createHash('sha256').update('prherald token key').update(key).digest('hex').slice(0, 12)

/** The cipher the environment's keys make; undefined when PRHERALD_TOKEN_KEY is unset (talk-back's linking is off). */
export function readTokenCipher(env: Env): TokenCipher | undefined {
  const current = readKey(env, TOKEN_KEY)
  const previous = readKey(env, PREVIOUS_TOKEN_KEY)
  if (current === undefined) {
    if (previous !== undefined) throw new PrheraldError('config_invalid', `${PREVIOUS_TOKEN_KEY} is set without ${TOKEN_KEY}`, { fix: `set ${TOKEN_KEY} to the new key; ${PREVIOUS_TOKEN_KEY} only opens what the old one sealed` })
    return undefined
  }
  return createTokenCipher(current, previous)
}

export function createTokenCipher(current: Buffer, previous?: Buffer): TokenCipher {
  const keys = new Map([[idOf(current), current]])
  if (previous !== undefined) keys.set(idOf(previous), previous)
  const keyId = idOf(current)
  return {
    keyId,
    opens: (id) => keys.has(id),
    seal(plain, boundTo) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', current, iv)
      cipher.setAAD(Buffer.from(boundTo))
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return { keyId, sealed: [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.') }
    },
    open(id, sealed, boundTo) {
      const key = keys.get(id)
      if (key === undefined) {
        throw new PrheraldError('config_invalid', `a linked account's tokens were sealed with a key that is neither ${TOKEN_KEY} nor ${PREVIOUS_TOKEN_KEY} (key id ${id})`, {
          fix: `set ${PREVIOUS_TOKEN_KEY} to the key they were sealed with, or have the person link again`,
        })
      }
      const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'))
      try {
        // Node 22 and 24's GCM decipher takes any tag of 4 to 16 bytes unless told its length ("applications that intend
        // to use authentication tags that are shorter than the default ... must set the authTagLength option", Node's
        // DEP0182), and checks only those bytes: a tag cut short is a forgery with better odds. Only the 16 bytes
        // seal() writes are taken, checked here and pinned in the decipher.
        if (tag?.length !== TAG_BYTES) throw new Error(`the tag is ${tag?.length ?? 0} bytes, not ${TAG_BYTES}`)
        const decipher = createDecipheriv('aes-256-gcm', key, iv!, { authTagLength: TAG_BYTES })
        decipher.setAAD(Buffer.from(boundTo))
        decipher.setAuthTag(tag!)
        return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8')
      } catch (cause) {
        throw new PrheraldError('database', `a linked account's sealed tokens do not open under key ${id} (altered, or moved from another row)`, { cause, fix: 'have the person link again' })
      }
    },
  }
}
