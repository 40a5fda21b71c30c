import { BITBUCKET_OPTIONAL_EVENTS, BITBUCKET_REQUIRED_EVENTS } from './events.ts'

/** The label Bitbucket's "Choose from a full list of triggers" shows for each event prherald needs. */
const TRIGGER_LABELS: Record<string, string> = {
  'pullrequest:created': 'Created',
  'pullrequest:updated': 'Updated',
  'pullrequest:approved': 'Approved',
  'pullrequest:unapproved': 'Approval removed',
  'pullrequest:changes_request_created': 'Changes request created',
  'pullrequest:changes_request_removed': 'Changes request removed',
  'pullrequest:fulfilled': 'Merged',
  'pullrequest:rejected': 'Declined',
  'pullrequest:comment_created': 'Comment created',
  'pullrequest:comment_updated': 'Comment updated',
  'pullrequest:comment_deleted': 'Comment deleted',
}

/**
 * Bitbucket webhooks are created by hand (the spec's "Host B webhook setup"): the exact steps, with the URL
 * to paste. Pure; whether the secret is set is passed in, the secret itself never is.
 */
export function bitbucketWebhookSteps(workspace: string, repo: string, webhookUrl: string, secretSet: boolean): string[] {
  const triggers = [...BITBUCKET_REQUIRED_EVENTS, ...BITBUCKET_OPTIONAL_EVENTS].map((e) => `       - ${TRIGGER_LABELS[e] ?? e}  (${e})`)
  return [
    `Bitbucket webhooks are created by hand. For ${workspace}/${repo}:`,
    '',
    secretSet
      ? ' 1. Secret: BITBUCKET_WEBHOOK_SECRET is set; you will paste the same value into the webhook.'
      : ' 1. Secret: BITBUCKET_WEBHOOK_SECRET is not set. Generate one, e.g. `openssl rand -base64 32`, and set it for prherald.',
    ` 2. Open https://bitbucket.org/${workspace}/${repo}/admin/webhooks (Repository settings > Webhooks) and click "Add webhook".`,
    ' 3. Title: a descriptive title, e.g. "prherald: pull requests to Slack".',
    ` 4. URL: ${webhookUrl}`,
    ' 5. Secret: the value of BITBUCKET_WEBHOOK_SECRET. Do not leave it blank: without a secret Bitbucket sends no',
    '    X-Hub-Signature and prherald rejects every delivery with 401.',
    ' 6. Status: Active checked.',
    ' 7. Triggers: select "Choose from a full list of triggers" and tick, under Pull Request:',
    ...triggers,
    ' 8. Save. Bitbucket sends a test ping right away; it can be ignored.',
    ` 9. Check: with BITBUCKET_TOKEN set, prherald-config validate ${workspace}/${repo} reports the webhook as OK.`,
  ]
}
