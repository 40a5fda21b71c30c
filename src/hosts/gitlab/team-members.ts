import type { GitlabClient } from './client.ts'

/** At most this many members are read of one group: a "team" of more is not one a review is assigned from. */
const MAX_MEMBERS = 500

/**
 * A GitLab team is the owner's subgroup `<owner>/<team>` (`acme/backend`). Its people are the group's direct
 * members: "List all members of a group or project" (`GET /groups/:id/members`, docs.gitlab.com/api/members),
 * which returns only direct members, not those inherited from ancestor groups (gitlab-org/gitlab-foss#51404:
 * "api/projects/:id/members ... returns only the direct members"; `/members/all` adds every member of the
 * parent groups, the whole organisation). Blocked members (`state` other than active) are left out.
 */
export function gitlabTeamMembers(client: GitlabClient) {
  return async (owner: string, team: string): Promise<string[]> => {
    const members = await client.paginate<{ username?: string; state?: string }>(`/groups/${encodeURIComponent(`${owner}/${team}`)}/members?per_page=100`, MAX_MEMBERS)
    return members.flatMap((m) => (m.username && (m.state ?? 'active') === 'active' ? [m.username] : []))
  }
}
