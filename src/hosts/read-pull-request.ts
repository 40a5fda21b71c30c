import { isIgnored, type Decoded, type PullRequestFacts } from '../../machines/pull-request-event.ts'
import { PrheraldError } from '../errors.ts'
import type { PullRequestAddress } from './contract.ts'

/**
 * Reconcile's read of one pull request. The host's REST answer for a pull request is the object a webhook
 * delivery carries, so each host runs it through its own delivery decoder: the facts then mean exactly what
 * they mean in a delivery (draft, merged, title). `fetch` returns the decoded answer and the call it made.
 */
export function readPullRequestWith(fetch: (pr: PullRequestAddress) => Promise<{ what: string; decoded: Decoded }>) {
  return async (pr: PullRequestAddress): Promise<PullRequestFacts> => {
    const { what, decoded } = await fetch(pr)
    if (isIgnored(decoded)) {
      throw new PrheraldError('git_host', `unexpected answer to ${what}: it does not describe a pull request`, {
        fix: 'check the git host\'s API URL variable: it must be the API of the host the webhooks come from',
      })
    }
    return decoded.pr
  }
}
