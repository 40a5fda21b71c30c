import type { SmokeRun, SmokeStep } from '../contract.ts'
import { SMOKE_AUTHOR, SMOKE_REVIEWER, smokeNumber, smokeTitle } from '../smoke-delivery.ts'

const ACTIONS: Record<SmokeStep, string> = { opened: 'open', approved: 'approval', merged: 'merge', closed: 'close' }
const STATES: Record<SmokeStep, string> = { opened: 'opened', approved: 'opened', merged: 'merged', closed: 'closed' }

/** A Merge Request Hook with the fields prherald's decoder reads (decode.ts). */
export function gitlabSmokePayload(run: SmokeRun, step: SmokeStep, updatedAt: string): { event: string; payload: unknown } {
  const author = { id: 1, username: SMOKE_AUTHOR, name: SMOKE_AUTHOR }
  const reviewer = { id: 2, username: SMOKE_REVIEWER, name: SMOKE_REVIEWER }
  return {
    event: 'Merge Request Hook',
    payload: {
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: step === 'approved' ? reviewer : author,
      project: { id: 1, path_with_namespace: `${run.owner}/${run.repo}` },
      object_attributes: {
        iid: smokeNumber(run),
        title: smokeTitle(run),
        url: `https://gitlab.com/${run.owner}/${run.repo}/-/merge_requests/${smokeNumber(run)}`,
        author_id: author.id,
        created_at: run.createdAt,
        updated_at: updatedAt,
        state: STATES[step],
        draft: false,
        action: ACTIONS[step],
      },
    },
  }
}
