import { githubExample } from '../helpers/github-examples.ts'
import { mergeRequestHook, noteHook, pipelineHook } from '../helpers/gitlab-fixtures.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'

// Deep, loosely typed example JSON, as in github-payloads.ts.
type Json = Record<string, any>

/** One delivery as the host sends it: its event header's value and its payload. */
export interface Step {
  event: string
  payload: Json
}

/** What the scenario table asks of a host; a step a host cannot send is undefined (the row is n/a for it). */
export interface ScenarioHost {
  id: string
  mappings: Record<string, Record<string, unknown>>
  /** How the message names pull request `n`: `PR #7`, `MR !7`. */
  reference(n: number): string
  open(n: number, draft?: boolean): Step
  requestReview(n: number, login: string): Step
  approve(n: number, login: string): Step
  requestChanges(n: number, login: string): Step
  comment(n: number, login: string): Step
  ready(n: number): Step
  checks: ((n: number, outcome: 'passed' | 'failed') => Step) | undefined
  merge(n: number): Step
  close(n: number): Step
  reopen: ((n: number) => Step) | undefined
}

const LATER = '2026-11-21T11:00:00Z'
const GITHUB_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' // the example pull request's head

export const githubHost: ScenarioHost = {
  id: 'github',
  mappings: { Codertocat: { 'Hello-World': { channel: 'C0000000020' } } },
  reference: (n) => `PR #${n}`,
  open: (n, draft = false) => ({ event: 'pull_request', payload: pullRequest('opened', n, { draft }) }),
  requestReview(n, login) {
    const payload = githubExample('pull_request', 'review_requested') as Json
    const person = { ...payload.requested_reviewer, login }
    delete payload.requested_team
    Object.assign(payload, { number: n, requested_reviewer: person })
    Object.assign(payload.pull_request, { number: n, html_url: `https://github.com/Codertocat/Hello-World/pull/${n}`, draft: false, updated_at: LATER, requested_reviewers: [person], requested_teams: [] })
    return { event: 'pull_request', payload }
  },
  approve: (n, login) => ({ event: 'pull_request_review', payload: review('approved', n, login) }),
  requestChanges: (n, login) => ({ event: 'pull_request_review', payload: review('changes_requested', n, login) }),
  comment: (n, login) => ({ event: 'issue_comment', payload: conversationComment(n, login) }),
  ready: (n) => ({ event: 'pull_request', payload: pullRequest('ready_for_review', n) }),
  checks(n, outcome) {
    const payload = githubExample('check_suite', 'completed', (p) => typeof (p.check_suite as Json).app?.slug === 'string') as Json
    Object.assign(payload.check_suite, { head_sha: GITHUB_HEAD, conclusion: outcome === 'passed' ? 'success' : 'failure', updated_at: LATER })
    payload.check_suite.pull_requests = [{ number: n, head: { sha: GITHUB_HEAD }, base: { repo: { id: payload.repository.id } } }]
    return { event: 'check_suite', payload }
  },
  merge: (n) => ({ event: 'pull_request', payload: pullRequest('closed', n, { merged: true }) }),
  close: (n) => ({ event: 'pull_request', payload: pullRequest('closed', n) }),
  reopen: (n) => ({ event: 'pull_request', payload: pullRequest('reopened', n) }),
}

const bb = (key: string, facts: Parameters<typeof bitbucketPayload>[1]): Step => ({ event: `pullrequest:${key}`, payload: bitbucketPayload(`pullrequest:${key}`, facts) })

export const bitbucketHost: ScenarioHost = {
  id: 'bitbucket',
  mappings: { acme: { api: { channel: 'C0000000021' } } },
  reference: (n) => `PR #${n}`,
  open: (id, draft = false) => bb('created', { id, draft }),
  requestReview: (id, login) => bb('updated', { id, reviewers: [login], updatedOn: LATER }),
  approve: (id, login) => bb('approved', { id, actor: login, reviewers: [login], verdicts: { [login]: 'approved' }, updatedOn: LATER }),
  requestChanges: (id, login) => bb('changes_request_created', { id, actor: login, reviewers: [login], verdicts: { [login]: 'changes_requested' }, updatedOn: LATER }),
  comment: (id, login) => bb('comment_created', { id, actor: login }),
  ready: (id) => bb('updated', { id, draft: false }),
  // Bitbucket's build statuses are not read by prherald; a declined pull request cannot be reopened.
  checks: undefined,
  merge: (id) => bb('fulfilled', { id, state: 'MERGED' }),
  close: (id) => bb('rejected', { id, state: 'DECLINED' }),
  reopen: undefined,
}

const mr = (action: string, facts: Parameters<typeof mergeRequestHook>[1]): Step => ({ event: 'Merge Request Hook', payload: mergeRequestHook(action, facts) })

export const gitlabHost: ScenarioHost = {
  id: 'gitlab',
  mappings: { acme: { api: { channel: 'C0000000022' } } },
  reference: (n) => `MR !${n}`,
  open: (iid, draft = false) => mr('open', { iid, draft }),
  requestReview: (iid, login) => mr('update', { iid, reviewers: [{ username: login }], changes: { reviewers: { previous: [], current: [{ username: login }] } }, updatedAt: LATER }),
  approve: (iid, login) => mr('approval', { iid, actor: login, reviewers: [{ username: login, state: 'approved' }], updatedAt: LATER }),
  requestChanges(iid, login) {
    const reviewer = { id: 6, username: login, state: 'requested_changes' }
    return mr('update', { iid, actor: login, reviewers: [reviewer], changes: { reviewers: { previous: [{ ...reviewer, state: 'unreviewed' }], current: [reviewer] } }, updatedAt: LATER })
  },
  comment: (iid, login) => ({ event: 'Note Hook', payload: noteHook({ iid, actor: login }) }),
  ready: (iid) => mr('update', { iid, changes: { draft: { previous: true, current: false } } }),
  checks: (iid, outcome) => ({ event: 'Pipeline Hook', payload: pipelineHook({ iid, status: outcome === 'passed' ? 'success' : 'failed' }) }),
  merge: (iid) => mr('merge', { iid, state: 'merged' }),
  close: (iid) => mr('close', { iid, state: 'closed' }),
  reopen: (iid) => mr('reopen', { iid }),
}
