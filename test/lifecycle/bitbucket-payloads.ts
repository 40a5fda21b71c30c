/**
 * Bitbucket Cloud pull-request event payloads, shaped as Atlassian documents them (Event payloads:
 * Pull request), with only the fields a scenario varies passed in.
 */
export interface BitbucketFacts {
  id: number
  title?: string
  draft?: boolean
  state?: 'OPEN' | 'MERGED' | 'DECLINED'
  actor?: string
  actorType?: 'user' | 'app_user'
  /** The pull request's author (nickname), `bob` unless given. */
  author?: string
  description?: string
  /** The pull request's reviewers (nicknames), and the verdict each has given, if any. */
  reviewers?: string[]
  verdicts?: Record<string, 'approved' | 'changes_requested'>
  /** The source branch's head commit as webhooks write it (12 characters); BITBUCKET_HEAD unless given. */
  head?: string
  /** The host's time of this change; one fixed time unless a scenario orders its deliveries. */
  updatedOn?: string
}

function user(nickname: string, type: 'user' | 'app_user' = 'user') {
  return {
    display_name: nickname.replace(/^./, (c) => c.toUpperCase()),
    nickname,
    account_id: `557058:${nickname}`,
    uuid: `{${nickname}-0000-4000-8000-000000000000}`,
    type,
    links: { html: { href: `https://bitbucket.org/${nickname}/` } },
  }
}

/** A head commit, full; webhooks carry its first 12 characters. */
export const BITBUCKET_HEAD = 'ed0e0bfd9a94c0ffee5e1b2d3c4a5f60718293a4'

export function bitbucketPayload(eventKey: string, facts: BitbucketFacts): Record<string, unknown> {
  const actor = user(facts.actor ?? 'alice', facts.actorType)
  const payload: Record<string, unknown> = {
    actor,
    repository: {
      type: 'repository', full_name: 'acme/api', name: 'api', uuid: '{repo-uuid}',
      workspace: { slug: 'acme', type: 'workspace' },
      links: { html: { href: 'https://bitbucket.org/acme/api' } },
    },
    pullrequest: {
      type: 'pullrequest', id: facts.id, title: facts.title ?? 'Add rate limiting', description: facts.description ?? 'Adds a limiter.',
      state: facts.state ?? 'OPEN', draft: facts.draft ?? false, author: user(facts.author ?? 'bob'),
      source: { branch: { name: 'feature/limits' }, commit: { type: 'commit', hash: facts.head ?? BITBUCKET_HEAD.slice(0, 12) } }, destination: { branch: { name: 'main' } },
      created_on: '2026-11-20T09:30:00.000000+00:00', updated_on: facts.updatedOn ?? '2026-11-21T10:00:00.000000+00:00',
      reviewers: (facts.reviewers ?? []).map((nickname) => user(nickname)),
      participants: (facts.reviewers ?? []).map((nickname) => {
        const verdict = facts.verdicts?.[nickname]
        return { type: 'participant', user: user(nickname), role: 'REVIEWER', approved: verdict === 'approved', state: verdict ?? null, participated_on: null }
      }),
      links: { html: { href: `https://bitbucket.org/acme/api/pull-requests/${facts.id}` } },
    },
  }
  // As Bitbucket does, the participants show the verdict the event leaves (so an approval's body and its
  // withdrawal's differ, as real ones do: prherald refuses a body it has seen under another delivery id).
  const verdictAfter = eventKey.endsWith(':approved') ? 'approved' : eventKey.endsWith(':changes_request_created') ? 'changes_requested' : undefined
  const pr = payload.pullrequest as { participants: Array<{ user: { nickname: string } }> }
  if (/:(un)?approved$|:changes_request_/.test(eventKey) && !pr.participants.some((p) => p.user.nickname === actor.nickname)) {
    pr.participants.push({ type: 'participant', user: actor, role: 'PARTICIPANT', approved: verdictAfter === 'approved', state: verdictAfter ?? null, participated_on: '2026-11-21T10:00:00+00:00' } as never)
  }
  if (eventKey.endsWith(':approved') || eventKey.endsWith(':unapproved')) payload.approval = { date: '2026-11-21T10:00:00+00:00', user: actor }
  if (eventKey.includes(':changes_request_')) payload.changes_request = { date: '2026-11-21T10:00:00+00:00', user: actor }
  if (eventKey.endsWith(':comment_created')) payload.comment = { id: 1, content: { raw: 'Looks good' }, user: actor, created_on: '2026-11-21T10:00:00+00:00' }
  return payload
}
