import type { SmokeRun, SmokeStep } from '../contract.ts'
import { SMOKE_AUTHOR, SMOKE_REVIEWER, smokeNumber, smokeTitle } from '../smoke-delivery.ts'

/** A GitHub payload with the fields prherald's decoder reads (decode.ts), nothing more. */
export function githubSmokePayload(run: SmokeRun, step: SmokeStep, updatedAt: string): { event: string; payload: unknown } {
  const ended = step === 'merged' || step === 'closed'
  const pullRequest = {
    number: smokeNumber(run),
    title: smokeTitle(run),
    html_url: `https://github.com/${run.owner}/${run.repo}/pull/${smokeNumber(run)}`,
    user: { login: SMOKE_AUTHOR, type: 'User' },
    created_at: run.createdAt,
    updated_at: updatedAt,
    draft: false,
    state: ended ? 'closed' : 'open',
    merged: step === 'merged',
  }
  const base = {
    pull_request: pullRequest,
    repository: { name: run.repo, full_name: `${run.owner}/${run.repo}`, owner: { login: run.owner } },
    sender: { login: step === 'approved' ? SMOKE_REVIEWER : SMOKE_AUTHOR, type: 'User' },
  }
  if (step === 'approved') {
    return { event: 'pull_request_review', payload: { action: 'submitted', review: { state: 'approved', user: { login: SMOKE_REVIEWER, type: 'User' } }, ...base } }
  }
  return { event: 'pull_request', payload: { action: ended ? 'closed' : 'opened', ...base } }
}
