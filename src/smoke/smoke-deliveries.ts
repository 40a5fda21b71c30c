import { randomUUID } from 'node:crypto'
import type { Provider } from '../../machines/pull-request-event.ts'
import { DELIVERY_HEADERS } from '../decode/decode-delivery.ts'
import { signBody } from '../hosts/verify-signature.ts'
import { SMOKE_PR_NUMBER, SMOKE_TITLE_PREFIX } from './smoke-pull-request.ts'

/** The deliveries a smoke run sends, in order; `closed` is always the last, and the service cleans up on it. */
export type SmokeStep = 'opened' | 'approved' | 'merged' | 'closed'

export interface SmokeRun {
  provider: Provider
  owner: string
  repo: string
  /** Distinguishes this run's message from an earlier run's in the channel. */
  runId: string
  createdAt: string
}

export interface SmokeDelivery {
  headers: Record<string, string>
  body: string
}

export const smokeTitle = (run: SmokeRun) => `${SMOKE_TITLE_PREFIX} ${run.runId}`

const AUTHOR = 'prherald-smoke'
const REVIEWER = 'prherald-smoke-reviewer'

/** A GitHub payload with the fields prherald's decoder reads (src/decode/github.ts), nothing more. */
function githubPayload(run: SmokeRun, step: SmokeStep, updatedAt: string): { event: string; payload: unknown } {
  const ended = step === 'merged' || step === 'closed'
  const pullRequest = {
    number: SMOKE_PR_NUMBER,
    title: smokeTitle(run),
    html_url: `https://github.com/${run.owner}/${run.repo}/pull/${SMOKE_PR_NUMBER}`,
    user: { login: AUTHOR, type: 'User' },
    created_at: run.createdAt,
    updated_at: updatedAt,
    draft: false,
    state: ended ? 'closed' : 'open',
    merged: step === 'merged',
  }
  const base = {
    pull_request: pullRequest,
    repository: { name: run.repo, full_name: `${run.owner}/${run.repo}`, owner: { login: run.owner } },
    sender: { login: step === 'approved' ? REVIEWER : AUTHOR, type: 'User' },
  }
  if (step === 'approved') {
    return { event: 'pull_request_review', payload: { action: 'submitted', review: { state: 'approved', user: { login: REVIEWER, type: 'User' } }, ...base } }
  }
  return { event: 'pull_request', payload: { action: ended ? 'closed' : 'opened', ...base } }
}

const BITBUCKET_KEYS: Record<SmokeStep, string> = {
  opened: 'pullrequest:created',
  approved: 'pullrequest:approved',
  merged: 'pullrequest:fulfilled',
  closed: 'pullrequest:rejected',
}
const BITBUCKET_STATES: Record<SmokeStep, string> = { opened: 'OPEN', approved: 'OPEN', merged: 'MERGED', closed: 'DECLINED' }

/** A Bitbucket Cloud payload with the fields prherald's decoder reads (src/decode/bitbucket.ts). */
function bitbucketPayload(run: SmokeRun, step: SmokeStep, updatedAt: string): { event: string; payload: unknown } {
  const author = { nickname: AUTHOR, display_name: AUTHOR, type: 'user' }
  const reviewer = { nickname: REVIEWER, display_name: REVIEWER, type: 'user' }
  return {
    event: BITBUCKET_KEYS[step],
    payload: {
      repository: { full_name: `${run.owner}/${run.repo}`, name: run.repo },
      pullrequest: {
        id: SMOKE_PR_NUMBER,
        title: smokeTitle(run),
        links: { html: { href: `https://bitbucket.org/${run.owner}/${run.repo}/pull-requests/${SMOKE_PR_NUMBER}` } },
        author,
        created_on: run.createdAt,
        updated_on: updatedAt,
        state: BITBUCKET_STATES[step],
        draft: false,
      },
      actor: step === 'approved' ? reviewer : author,
      ...(step === 'approved' ? { approval: { user: reviewer, date: run.createdAt } } : {}),
    },
  }
}

/** One signed delivery, headers as the git host sends them, with a fresh delivery id. */
export function smokeDelivery(run: SmokeRun, step: SmokeStep, secret: string): SmokeDelivery {
  // The host's "last changed" time: each step is sent after the one before, so the times only grow.
  const updatedAt = new Date().toISOString()
  const { event, payload } = run.provider === 'github' ? githubPayload(run, step, updatedAt) : bitbucketPayload(run, step, updatedAt)
  const body = JSON.stringify(payload)
  const names = DELIVERY_HEADERS[run.provider]
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'prherald-smoke',
    [names.event]: event,
    [names.delivery]: randomUUID(),
    [names.signature]: signBody(secret, body),
  }
  if (run.provider === 'bitbucket') headers['x-attempt-number'] = '1'
  return { headers, body }
}
