import type { SlackDirectory } from '../slack/slack-directory.ts'

export type IdentityVerdict = 'ok' | 'wrong_workspace' | 'unknown'

/**
 * The workspace and app the bot token belongs to (auth.test, asked once and kept): a signed request naming
 * another `team_id` or `api_app_id` is refused. `unknown`: Slack could not be asked yet; the caller answers
 * without acting, and the next request asks again.
 */
export function createSlackIdentity(directory: Pick<SlackDirectory, 'identity'>) {
  let known: Promise<{ teamId: string | undefined; appId: string | undefined }> | undefined
  return async function check(teamId: string | undefined, appId: string | undefined): Promise<IdentityVerdict> {
    known ??= directory.identity()
    let identity
    try {
      identity = await known
    } catch {
      known = undefined
      return 'unknown'
    }
    if (identity.teamId !== undefined && teamId !== identity.teamId) return 'wrong_workspace'
    if (identity.appId !== undefined && appId !== undefined && appId !== identity.appId) return 'wrong_workspace'
    return 'ok'
  }
}

export type CheckSlackIdentity = ReturnType<typeof createSlackIdentity>
