import type { SmokeRun, SmokeStep } from '../contract.ts'
import { SMOKE_AUTHOR, SMOKE_REVIEWER, smokeNumber, smokeTitle } from '../smoke-delivery.ts'

const KEYS: Record<SmokeStep, string> = {
  opened: 'pullrequest:created',
  approved: 'pullrequest:approved',
  merged: 'pullrequest:fulfilled',
  closed: 'pullrequest:rejected',
}
const STATES: Record<SmokeStep, string> = { opened: 'OPEN', approved: 'OPEN', merged: 'MERGED', closed: 'DECLINED' }

/** A Bitbucket Cloud payload with the fields prherald's decoder reads (decode.ts). */
export function bitbucketSmokePayload(run: SmokeRun, step: SmokeStep, updatedAt: string): { event: string; payload: unknown } {
  const author = { nickname: SMOKE_AUTHOR, display_name: SMOKE_AUTHOR, type: 'user' }
  const reviewer = { nickname: SMOKE_REVIEWER, display_name: SMOKE_REVIEWER, type: 'user' }
  return {
    event: KEYS[step],
    payload: {
      repository: { full_name: `${run.owner}/${run.repo}`, name: run.repo },
      pullrequest: {
        id: smokeNumber(run),
        title: smokeTitle(run),
        links: { html: { href: `https://bitbucket.org/${run.owner}/${run.repo}/pull-requests/${smokeNumber(run)}` } },
        author,
        created_on: run.createdAt,
        updated_on: updatedAt,
        state: STATES[step],
        draft: false,
      },
      actor: step === 'approved' ? reviewer : author,
      ...(step === 'approved' ? { approval: { user: reviewer, date: run.createdAt } } : {}),
    },
  }
}
