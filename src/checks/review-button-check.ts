import { readSlackSigningSecret, type Env } from '../config/load-config.ts'
import { redactUrl } from '../log/redact-url.ts'
import { SLACK_PATHS } from '../http/slack-route.ts'
import type { CheckResult } from './check-result.ts'

/**
 * Whether the "Start review" button is on (SLACK_SIGNING_SECRET set, never shown), and the one setting prherald
 * cannot check from here: the Interactivity Request URL lives in the Slack app. Optional, so never a FAIL.
 */
export function reviewButtonResult(env: Env, socketMode = false): CheckResult {
  const target = 'SLACK_SIGNING_SECRET'
  if (socketMode) {
    return { name: 'button', target: 'slack.socket_mode', status: 'OK', reason: 'true: Start review button on; its clicks come over Socket Mode, no Request URL needed (docs/slack-app.md#socket-mode)' }
  }
  if (readSlackSigningSecret(env) === undefined) {
    return { name: 'button', target, status: 'SKIP', reason: 'unset (optional): messages have no Start review button' }
  }
  const base = env.PRHERALD_PUBLIC_URL?.trim().replace(/\/+$/, '')
  const url = base ? `${redactUrl(base)}${SLACK_PATHS.interactive}` : `<your public URL>${SLACK_PATHS.interactive}`
  return {
    name: 'button', target, status: 'OK',
    reason: `set: Start review button on; the Slack app's Interactivity Request URL must be ${url} (docs/slack-app.md#start-review)`,
  }
}
