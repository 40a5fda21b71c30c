import { decodeBitbucket } from './bitbucket/decode.ts'
import { decodeGithub } from './github/decode.ts'
import { isIgnored, type Decoded, type PullRequestFacts } from '../../machines/pull-request-event.ts'
import { PrheraldError, isPrheraldError } from '../errors.ts'
import type { BitbucketClient } from './bitbucket/client.ts'
import type { GithubRequest } from './github/requests.ts'
import { RateLimited, type GateClock, type HostRateGate } from '../reconcile/host-rate-gate.ts'

export interface PullRequestAddress {
  owner: string
  repo: string
  number: number
}

/** The pull request as the git host shows it now, in the facts a delivery carries. */
export type ReadPullRequest = (pr: PullRequestAddress) => Promise<PullRequestFacts>

const enc = encodeURIComponent

/**
 * The REST answer for one pull request is the object a webhook delivery carries, so the decoder of
 * deliveries reads it: the facts then mean exactly what they mean in a delivery (draft, merged, title).
 */
function factsOf(decoded: Decoded, what: string): PullRequestFacts {
  if (isIgnored(decoded)) {
    throw new PrheraldError('git_host', `unexpected answer to ${what}: it does not describe a pull request`, {
      fix: 'check GITHUB_API_URL / BITBUCKET_API_URL: it must be the API of the host the webhooks come from',
    })
  }
  return decoded.pr
}

/** GET /repos/{owner}/{repo}/pulls/{number} */
export function githubPullRequests(request: GithubRequest): ReadPullRequest {
  return async ({ owner, repo, number }) => {
    const path = `/repos/${enc(owner)}/${enc(repo)}/pulls/${number}`
    const { data } = await request<{ user?: unknown }>('GET', path)
    return factsOf(decodeGithub('pull_request', 'reconcile', {
      action: 'opened', pull_request: data, repository: { owner: { login: owner }, name: repo }, sender: data.user,
    }), `GET ${path}`)
  }
}

/** GET /repositories/{workspace}/{repo}/pullrequests/{id}; a 429 is waited out (its Retry-After) through the gate. */
export function bitbucketPullRequests(client: BitbucketClient, gate: HostRateGate, clock: GateClock): ReadPullRequest {
  return async ({ owner, repo, number }) => {
    const path = `/repositories/${enc(owner)}/${enc(repo)}/pullrequests/${number}`
    const data = await gate.run(async () => {
      try {
        return await client.get<{ author?: unknown }>(path)
      } catch (error) {
        if (isPrheraldError(error, 'git_host') && error.retryAfterMs !== undefined) throw new RateLimited(clock.now() + error.retryAfterMs)
        throw error
      }
    })
    return factsOf(decodeBitbucket('pullrequest:updated', 'reconcile', {
      pullrequest: data, repository: { full_name: `${owner}/${repo}` }, actor: data.author,
    }), `GET ${path}`)
  }
}
