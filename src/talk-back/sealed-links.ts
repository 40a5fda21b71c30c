import { errorFields, type Logger } from '../log/logger.ts'
import type { TalkBackStore } from '../store/talk-back-store.ts'
import { PREVIOUS_TOKEN_KEY, TOKEN_KEY, type TokenCipher } from './token-cipher.ts'

/** The linked accounts per key id they are sealed under (TalkBackStore.linkedKeyIds, or doctor's read of the database). */
export type LinkedKeyIds = ReadonlyArray<{ keyId: string; links: number }>

/** Links no configured key opens: a check line's fields (doctor prints it as one), with their count and key ids. */
export interface SealedLinks {
  name: 'sealed links'
  target: string
  status: 'WARN'
  reason: string
  fix: string
  links: number
  keyIds: string[]
}

/**
 * The links stored under a key the configured ones cannot open (PRHERALD_TOKEN_KEY changed without
 * PRHERALD_TOKEN_KEY_PREVIOUS, or unset): a WARN with their count and the fix, undefined when every link opens.
 * One judgement for the server's start (its warning and /readyz's `sealed_links`) and prherald-doctor's line.
 */
export function sealedLinksResult(linked: LinkedKeyIds, cipher: TokenCipher | undefined): SealedLinks | undefined {
  const sealed = linked.filter((k) => !cipher?.opens(k.keyId))
  const links = sealed.reduce((n, k) => n + k.links, 0)
  if (links === 0) return undefined
  return {
    name: 'sealed links', target: TOKEN_KEY, status: 'WARN', links, keyIds: sealed.map((k) => k.keyId),
    reason: `${links} linked account${links === 1 ? '' : 's'} cannot be opened with the configured token keys; those people are taken as not linked`,
    fix: cipher
      ? `set ${PREVIOUS_TOKEN_KEY} to the key they were sealed with (key ids ${sealed.map((k) => k.keyId).join(', ')}), or have them link again with /prherald link`
      : `set ${TOKEN_KEY} to the key they were sealed with, or have them link again with /prherald link`,
  }
}

/**
 * At start: one warning with the count of links the configured keys cannot open (sealedLinksResult); those
 * people are taken as not linked (their replies never stall a pull request) until the old key is set again or
 * they link again. What it returns is shown in /readyz (`sealed_links`) until then.
 */
export async function warnSealedLinks(deps: { store: Pick<TalkBackStore, 'linkedKeyIds'>; cipher: TokenCipher | undefined; logger: Logger }): Promise<SealedLinks | undefined> {
  try {
    const result = sealedLinksResult(await deps.store.linkedKeyIds(), deps.cipher)
    if (result) deps.logger.warn(result.reason, { links: result.links, key_ids: result.keyIds, fix: result.fix })
    return result
  } catch (error) {
    deps.logger.warn('linked accounts not counted at start', errorFields(error))
    return undefined
  }
}
