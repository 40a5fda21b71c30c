import { foreignOrigin } from '../slack/foreign-origin.ts'
import type { SlackDirectory } from '../slack/slack-directory.ts'

export type IdentityVerdict = 'ok' | 'wrong_workspace' | 'unknown'

/**
 * The workspace and app the bot token belongs to (auth.test, asked once and kept): a signed request naming
 * another `team_id` or `api_app_id`, or none, is refused (foreign-origin.ts, the rule clicks follow too).
 * `unknown`: Slack could not be asked yet; the caller answers without acting, and the next request asks again.
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
    return foreignOrigin(identity, { teamId, appId }) ? 'wrong_workspace' : 'ok'
  }
}

export type CheckSlackIdentity = ReturnType<typeof createSlackIdentity>
