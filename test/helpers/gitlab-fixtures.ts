import { readFileSync } from 'node:fs'

const FIXTURES = new URL('../fixtures/gitlab/', import.meta.url)
type Json = Record<string, any>

/** A fresh copy of test/fixtures/gitlab/<name>.json, GitLab's documented example payload. */
export function gitlabFixture(name: 'merge_request' | 'note_merge_request' | 'note_issue' | 'pipeline'): Json {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Json
}

export interface GitlabFacts {
  iid: number
  /** `group/project` or deeper; `acme/api` unless given. */
  project?: string
  title?: string
  draft?: boolean
  state?: 'opened' | 'closed' | 'merged'
  /** Who acted (username); the author, `bob`, unless given. */
  actor?: string
  reviewers?: Array<{ username: string; state?: string }>
  /** `changes` of an update. */
  changes?: Json
  /** The merge request's labels by title (the hook's `labels`); the documented example's otherwise. */
  labels?: string[]
  oldrev?: string
  head?: string
  updatedAt?: string
}

const USERS: Record<string, number> = { bob: 51, alice: 6, carol: 7, dave: 8 }
const user = (username: string) => ({ id: USERS[username] ?? 99, name: username, username, avatar_url: null, email: '[REDACTED]' })

function project(path: string): Json {
  return { id: 1, name: path.split('/').pop(), web_url: `https://gitlab.example.com/${path}`, path_with_namespace: path, default_branch: 'main' }
}

/** GitLab's documented Merge Request Hook, with the facts a scenario varies. */
export function mergeRequestHook(action: string, facts: GitlabFacts): Json {
  const payload = gitlabFixture('merge_request')
  const path = facts.project ?? 'acme/api'
  payload.user = user(facts.actor ?? 'bob')
  payload.project = { ...payload.project, ...project(path) }
  Object.assign(payload.object_attributes, {
    iid: facts.iid, title: facts.title ?? 'Add rate limiting', draft: facts.draft ?? false, work_in_progress: facts.draft ?? false,
    state: facts.state ?? 'opened', action, url: `https://gitlab.example.com/${path}/-/merge_requests/${facts.iid}`,
    author_id: USERS.bob, created_at: '2026-11-20T09:30:00Z', updated_at: facts.updatedAt ?? '2026-11-21T10:00:00Z',
    last_commit: { ...payload.object_attributes.last_commit, id: facts.head ?? 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7' },
  })
  if (facts.oldrev) payload.object_attributes.oldrev = facts.oldrev
  payload.changes = facts.changes ?? {}
  if (facts.labels) payload.labels = payload.object_attributes.labels = gitlabLabels(facts.labels)
  payload.reviewers = (facts.reviewers ?? []).map((r) => ({ ...user(r.username), ...(r.state ? { state: r.state } : {}) }))
  return payload
}

/** Labels in the documented example's shape (`title` is what prherald reads), one per title. */
export function gitlabLabels(titles: readonly string[]): Json[] {
  const [example] = gitlabFixture('merge_request').labels as Json[]
  return titles.map((title, i) => ({ ...example, id: 300 + i, title }))
}

/** An update's `changes.labels` as GitLab's documented example has it: the labels before and after. */
export function labelChanges(previous: readonly string[], current: readonly string[]): Json {
  return { labels: { previous: gitlabLabels(previous), current: gitlabLabels(current) } }
}

/** GitLab's documented Note Hook on a merge request. */
export function noteHook(facts: GitlabFacts): Json {
  const payload = gitlabFixture('note_merge_request')
  const path = facts.project ?? 'acme/api'
  payload.user = user(facts.actor ?? 'carol')
  payload.project = { ...payload.project, ...project(path) }
  Object.assign(payload.merge_request, {
    iid: facts.iid, title: facts.title ?? 'Add rate limiting', author_id: USERS.bob, state: facts.state ?? 'opened', draft: facts.draft ?? false,
    url: `https://gitlab.example.com/${path}/-/merge_requests/${facts.iid}`, created_at: '2026-11-20 09:30:00 UTC', updated_at: '2026-11-21 10:00:00 UTC',
  })
  return payload
}

export interface NoteFacts {
  /** The note's id, its text and its action (GitLab 16.11+: `create` or `update`). */
  id: number
  note?: string
  action?: 'create' | 'update'
  /** A comment on the diff: GitLab's DiffNote with its `position` (file and line) and the discussion it is in. */
  diff?: { path: string; line: number; discussion: string }
}

/**
 * The documented Note Hook with the note a scenario writes. A comment on the diff carries what GitLab adds to
 * a note there (`type: DiffNote`, `position` with `new_path`/`new_line`, as the Discussions API names them);
 * every note carries its `discussion_id`.
 */
export function commentHook(facts: GitlabFacts, note: NoteFacts): Json {
  const payload = noteHook(facts)
  const path = facts.project ?? 'acme/api'
  Object.assign(payload.object_attributes, {
    id: note.id, note: note.note ?? 'Looks good to me.', action: note.action ?? 'create',
    discussion_id: note.diff?.discussion ?? `d${note.id}`.padEnd(40, '0'),
    url: `https://gitlab.example.com/${path}/-/merge_requests/${facts.iid}#note_${note.id}`,
    ...(note.diff ? {
      type: 'DiffNote', line_code: null,
      position: { base_sha: 'a'.repeat(40), start_sha: 'b'.repeat(40), head_sha: 'c'.repeat(40), old_path: note.diff.path, new_path: note.diff.path, position_type: 'text', old_line: null, new_line: note.diff.line },
    } : { type: null }),
  })
  return payload
}

/** GitLab's documented Pipeline Hook for a merge request's pipeline. */
export function pipelineHook(facts: GitlabFacts & { status: string; ref?: string; finishedAt?: string }): Json {
  const payload = gitlabFixture('pipeline')
  const path = facts.project ?? 'acme/api'
  payload.project = { ...payload.project, ...project(path) }
  Object.assign(payload.object_attributes, {
    sha: facts.head ?? 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', status: facts.status, ref: facts.ref ?? `refs/merge-requests/${facts.iid}/head`,
    finished_at: facts.finishedAt ?? '2026-11-21 11:00:00 UTC',
  })
  Object.assign(payload.merge_request, { iid: facts.iid, target_project_id: 1, url: `https://gitlab.example.com/${path}/-/merge_requests/${facts.iid}` })
  return payload
}

/** A merge request as GET /projects/:id/merge_requests/:iid returns it (doc/api/merge_requests.md, the fields around those prherald reads). */
export function apiMergeRequest(facts: GitlabFacts): Json {
  const path = facts.project ?? 'acme/api'
  const state = facts.state ?? 'opened'
  const author = { id: USERS.bob, username: 'bob', name: 'bob', state: 'active', locked: false, avatar_url: null, web_url: 'https://gitlab.example.com/bob' }
  return {
    id: 1000 + facts.iid, iid: facts.iid, project_id: 1, title: facts.title ?? 'Add rate limiting', description: 'Limits requests per client.',
    state, created_at: '2026-11-20T09:30:00.000Z', updated_at: facts.updatedAt ?? '2026-11-22T10:00:00.000Z',
    merged_by: state === 'merged' ? user('alice') : null, merged_at: state === 'merged' ? '2026-11-22T10:00:00.000Z' : null,
    closed_by: state === 'closed' ? user('alice') : null, closed_at: state === 'closed' ? '2026-11-22T10:00:00.000Z' : null,
    target_branch: 'main', source_branch: 'rate-limiting', user_notes_count: 1, upvotes: 0, downvotes: 0, author,
    assignees: [], reviewers: (facts.reviewers ?? []).map((r) => user(r.username)), source_project_id: 1, target_project_id: 1, labels: [],
    draft: facts.draft ?? false, work_in_progress: facts.draft ?? false, merge_when_pipeline_succeeds: false,
    detailed_merge_status: state === 'opened' ? 'mergeable' : 'not_open', sha: facts.head ?? 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    merge_commit_sha: null, squash_commit_sha: null, references: { short: `!${facts.iid}`, relative: `!${facts.iid}`, full: `${path}!${facts.iid}` },
    web_url: `https://gitlab.example.com/${path}/-/merge_requests/${facts.iid}`,
  }
}
