import type { CheckDelivery, CheckOutcome, Ignored, IgnoreReason } from '../../../machines/pull-request-event.ts'
import { at, int, obj, str } from '../../read-fields.ts'
import { gitlabActor, isoTime, projectPath } from './read-gitlab.ts'

export const PIPELINE_HOOK = 'Pipeline Hook'

// A Map: a lookup by a payload string must not find `constructor`. Unfinished and cancelled pipelines decide nothing.
const STATUSES = new Map<string, CheckOutcome>([
  ['success', 'passed'], ['skipped', 'passed'],
  ['failed', 'failed'],
  ['created', 'pending'], ['waiting_for_resource', 'pending'], ['preparing', 'pending'], ['pending', 'pending'],
  ['running', 'pending'], ['manual', 'pending'], ['scheduled', 'pending'], ['canceled', 'pending'], ['canceling', 'pending'],
])

/** Merged results and merge train pipelines run on these refs, on a commit that is no branch's head. */
const MERGE_REF = /^refs\/merge-requests\/\d+\/(?:merge|train)$/

/**
 * Decodes a Pipeline Hook into a check result: the pipeline's status for its commit, and the merge request it
 * names (pipelines for merge requests). One result per pipeline source (`pipeline:push`,
 * `pipeline:merge_request_event`), the latest replacing the earlier. Pure; never throws.
 */
export function decodeGitlabPipeline(deliveryId: string, payload: unknown): CheckDelivery | Ignored {
  const root = obj(payload)
  const { owner, repo } = projectPath(root)
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: PIPELINE_HOOK, owner, repo })
  if (!root) return ignored('invalid_payload')
  const pipeline = at(root, 'object_attributes')
  const sha = str(pipeline, 'sha')
  const outcome = STATUSES.get(str(pipeline, 'status') ?? '')
  const when = isoTime(str(pipeline, 'finished_at')) ?? isoTime(str(pipeline, 'created_at'))
  const sender = gitlabActor(at(root, 'user'))
  if (!owner || !repo || !sha || !outcome || !when || !sender) return ignored('invalid_payload')
  // Only a merge request of this project (a fork's pipeline names the target project's, which is this one).
  const target = at(root, 'merge_request', 'target_project_id')
  const iid = target === undefined || target === at(root, 'project', 'id') ? int(root, 'merge_request', 'iid') : undefined
  const onMergeRef = iid !== undefined && MERGE_REF.test(str(pipeline, 'ref') ?? '')
  return {
    check: true, provider: 'gitlab', deliveryId, owner, repo,
    result: { sha, source: `pipeline:${str(pipeline, 'source') ?? 'push'}`, outcome, at: when, ...(onMergeRef ? { onMergeRef: true } : {}) },
    prNumbers: iid === undefined ? [] : [iid],
    sender,
  }
}
