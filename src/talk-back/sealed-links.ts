import { errorFields, type Logger } from '../log/logger.ts'
import type { TalkBackStore } from '../store/talk-back-store.ts'
import { PREVIOUS_TOKEN_KEY, TOKEN_KEY, type TokenCipher } from './token-cipher.ts'

/**
 * At start: the links stored under a key the configured ones cannot open (PRHERALD_TOKEN_KEY changed without
 * PRHERALD_TOKEN_KEY_PREVIOUS, or unset). One warning with their count: those people are taken as not linked
 * (their replies never stall a pull request) until the old key is set again or they link again.
 */
export async function warnSealedLinks(deps: { store: Pick<TalkBackStore, 'linkedKeyIds'>; cipher: TokenCipher | undefined; logger: Logger }): Promise<number> {
  try {
    const sealed = (await deps.store.linkedKeyIds()).filter((k) => !deps.cipher?.opens(k.keyId))
    const links = sealed.reduce((n, k) => n + k.links, 0)
    if (links > 0) {
      deps.logger.warn(`${links} linked account${links === 1 ? '' : 's'} cannot be opened with the configured token keys; those people are taken as not linked`, {
        links, key_ids: sealed.map((k) => k.keyId),
        fix: deps.cipher
          ? `set ${PREVIOUS_TOKEN_KEY} to the key they were sealed with (their key ids are above), or have them link again with /prherald link`
          : `set ${TOKEN_KEY} to the key they were sealed with, or have them link again with /prherald link`,
      })
    }
    return links
  } catch (error) {
    deps.logger.warn('linked accounts not counted at start', errorFields(error))
    return 0
  }
}
