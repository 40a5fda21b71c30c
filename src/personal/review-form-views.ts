import type { ReviewKind } from '../../machines/review-kind.ts'
import { REVIEW_FORM } from '../slack/decode-review-action.ts'
import { escapeLinkUrl, escapeText, escapeWithin } from '../slack/render-message.ts'
import { REVIEW_LABELS } from '../slack/render-review-actions.ts'
import type { ModalView } from '../slack/slack-client.ts'

/** The pull request as the modal names it: `<url|PR #7: title>`. */
export interface FormSubject {
  reference: string
  title: string
  url: string
  /** `GitHub`, `GitLab`, `Bitbucket`. */
  hostName: string
}

const plain = (text: string) => ({ type: 'plain_text' as const, text })
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } })

/** The subject line: the link carries the reference and the title, cut to a block's size. */
export function subjectLine(subject: FormSubject): string {
  const label = `${escapeText(subject.reference)}: ${escapeWithin(subject.title.trim(), 1000)}`
  return subject.url.length > 0 && subject.url.length <= 1000 ? `<${escapeLinkUrl(subject.url)}|${label}>` : label
}

/** A modal that only says something, closed with "Close" (no submit): a refusal, "Submitting…", the outcome. */
export function noticeView(action: ReviewKind | undefined, text: string): ModalView {
  return { type: 'modal', title: plain(action ? REVIEW_LABELS[action] : 'Review'), close: plain('Close'), blocks: [section(text)] }
}

/**
 * The form: the pull request, whose account the review is made as, and one text field (required to request
 * changes or to comment). `private_metadata` is the stored form's id and nothing else (migrations/0020).
 */
export function formView(action: ReviewKind, subject: FormSubject, login: string, formId: string): ModalView {
  // Only an approval may come without text (the submission checks the others again: whitespace passes Slack's check).
  const required = action !== 'approve'
  return {
    type: 'modal', callback_id: REVIEW_FORM.callbackId, private_metadata: formId,
    title: plain(REVIEW_LABELS[action]), submit: plain(REVIEW_LABELS[action]), close: plain('Cancel'),
    blocks: [
      section(`${subjectLine(subject)}\nAs *${escapeWithin(login, 200)}* on ${escapeText(subject.hostName)}.`),
      {
        type: 'input', block_id: REVIEW_FORM.block, optional: !required,
        label: plain(action === 'request_changes' ? 'What should change' : action === 'comment' ? 'Comment' : 'Comment (optional)'),
        element: { type: 'plain_text_input', action_id: REVIEW_FORM.action, multiline: true, max_length: REVIEW_FORM.maxLength },
      },
    ],
  }
}

/** The person has no linked account on the host: the link to make one, or who can set linking up. */
export function linkView(action: ReviewKind, hostName: string, url: string | undefined): ModalView {
  const host = escapeText(hostName)
  return noticeView(action, url
    ? `Reviews from Slack are made with your own ${host} account. <${escapeLinkUrl(url)}|Link your ${host} account>, then try again.`
    : `Reviews from Slack are made with your own ${host} account, and linking one is not set up on this prherald: ask whoever runs it.`)
}

const DONE: Record<ReviewKind, string> = { approve: 'Approved', request_changes: 'Changes requested', comment: 'Commented' }

/** What the host did with the review, in its own words when it refused. */
export function outcomeView(action: ReviewKind, subject: FormSubject, outcome: { ok: true } | { ok: 'partial'; says: string } | { ok: false; says: string | undefined }): ModalView {
  const host = escapeText(subject.hostName)
  const on = subjectLine(subject)
  if (outcome.ok === true) return noticeView(action, `${DONE[action]} on ${on}. The message changes when ${host} tells prherald.`)
  if (outcome.ok === 'partial') return noticeView(action, `${DONE[action]} on ${on}, but your comment was not posted: ${host} said “${escapeWithin(outcome.says, 1000)}”.`)
  return noticeView(action, outcome.says
    ? `${host} refused: “${escapeWithin(outcome.says, 1000)}”.`
    : `The review could not be sent: ${host} did not answer. Nothing was changed that prherald knows of; try again in a moment.`)
}
