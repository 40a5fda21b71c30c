import { pullRequestKey, storedPullRequest } from '../../machines/pull-request-event.ts'
import { isPrheraldError } from '../errors.ts'
import { hostOf } from '../hosts/registry.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { codeReplyValue } from '../slack/code-reply-value.ts'
import { CODE_REPLY_FORM, type CodeReplyClick, type CodeReplySubmission } from '../slack/decode-code-reply.ts'
import { escapeLinkUrl, escapeText } from '../slack/render-message.ts'
import type { ModalView, SlackClient } from '../slack/slack-client.ts'
import { auditTalkBack, PER_MINUTE, type PersonLimits } from '../talk-back/person-limits.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'
import { markerLine } from '../hosts/talk-back-contract.ts'
import { replyMarker } from '../talk-back/reply-body.ts'
import type { SubmissionAnswer } from './review-from-slack.ts'

export interface CodeThreadReplyDeps {
  talkBack: Pick<TalkBackService, 'settingsFor' | 'linkUrl' | 'tokenFor' | 'as'>
  slack: Pick<SlackClient, 'openView' | 'updateView'>
  limits: PersonLimits
  logger: Logger
}

const plain = (text: string) => ({ type: 'plain_text' as const, text })
const notice = (text: string): ModalView => ({ type: 'modal', title: plain('Reply'), close: plain('Close'), blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] })

/**
 * The hidden last line of a reply made from Slack (talk-back/own-comment.ts): its webhook comes back and is not
 * mirrored into the thread it came from. The view's id names the reply in it.
 */
const marked = (body: string, viewId: string) => `${body}\n\n${markerLine(replyMarker('code', viewId))}`

/**
 * Replies to a code thread from Slack (docs/talk-back.md, "From the pull request into Slack"): a mirrored
 * code comment's Reply button opens a small modal (views.open within the click's 3 s, nothing looked up
 * first); its submission is answered at once ("Sending…"), and the reply is made at the host in that code
 * thread with the person's own linked account, the outcome then put in the modal.
 */
export function createCodeThreadReply(deps: CodeThreadReplyDeps) {
  const { logger } = deps
  const send = async (submission: CodeReplySubmission): Promise<void> => {
    const { target } = submission
    const host = hostOf(target.provider).words.name
    const prKey = pullRequestKey(target)
    const audit = (login: string | undefined, outcome: string) =>
      auditTalkBack(logger, { slackUser: submission.user, host: target.provider, login, action: 'code_reply', pr: prKey, outcome })
    const token = await deps.talkBack.tokenFor(submission.user, target.provider)
    const api = token ? deps.talkBack.as(target.provider, token.accessToken) : undefined
    const thread = api?.inThread?.(target.thread)
    if (!token || !thread) {
      audit(undefined, 'not_linked')
      const url = await deps.talkBack.linkUrl(submission.user, target.provider)
      return deps.slack.updateView(submission.viewId, notice(url
        ? `Replies go to ${escapeText(host)} as you. <${escapeLinkUrl(url)}|Link your ${escapeText(host)} account>, then reply again.`
        : `Replies go to ${escapeText(host)} as you, and linking an account is not set up on this prherald: ask whoever runs it.`))
    }
    try {
      const made = await thread.createComment(target, marked(submission.text, submission.viewId))
      audit(token.login, 'replied')
      const link = made.url ? ` <${escapeLinkUrl(made.url)}|See it on ${escapeText(host)}>.` : ''
      await deps.slack.updateView(submission.viewId, notice(`Your reply is in the code thread.${link}`))
    } catch (error) {
      const says = isPrheraldError(error) ? error.hostSays : undefined
      audit(token.login, says === undefined ? 'failed' : 'refused')
      if (says === undefined) logger.warn('code thread reply not sent', { pr_key: prKey, ...errorFields(error) })
      await deps.slack.updateView(submission.viewId, notice(says
        ? `${escapeText(host)} refused: “${escapeText(says)}”.`
        : `The reply could not be sent: ${escapeText(host)} did not answer. Try again in a moment.`))
    }
  }

  return {
    /** Opens the reply form at once: the click's trigger_id lasts 3 s, and whether the person is linked is told on submit. */
    async open(click: CodeReplyClick): Promise<void> {
      const { target } = click
      const repository = storedPullRequest(target).repository
      if (deps.talkBack.settingsFor(target.provider, repository).threadReplies === 'off') {
        await deps.slack.openView(click.triggerId, notice('Replies from Slack are off for this repository.'))
        return
      }
      await deps.slack.openView(click.triggerId, {
        type: 'modal', callback_id: CODE_REPLY_FORM.callbackId, private_metadata: codeReplyValue(pullRequestKey(target), target.thread),
        title: plain('Reply'), submit: plain('Reply'), close: plain('Cancel'),
        blocks: [{
          type: 'input', block_id: CODE_REPLY_FORM.block, label: plain(`Your reply in the code thread on ${hostOf(target.provider).words.name}`),
          element: { type: 'plain_text_input', action_id: CODE_REPLY_FORM.action, multiline: true, max_length: CODE_REPLY_FORM.maxLength },
        }],
      })
    },

    /** Answers the submission at once; the reply is made after the answer. */
    async submit(submission: CodeReplySubmission): Promise<SubmissionAnswer> {
      if (submission.text === '') return { response_action: 'errors', errors: { [CODE_REPLY_FORM.block]: 'Write the reply: an empty one is not posted.' } }
      if (!(await deps.limits.take('replies', submission.user))) {
        return { response_action: 'errors', errors: { [CODE_REPLY_FORM.block]: `You have sent ${PER_MINUTE.replies} replies from Slack in the last minute; please wait a moment.` } }
      }
      void send(submission).catch(async (error: unknown) => {
        logger.warn('code thread reply failed', { pr_key: pullRequestKey(submission.target), ...errorFields(error) })
        await deps.slack.updateView(submission.viewId, notice('prherald could not send this reply; try again in a moment.')).catch(() => undefined)
      })
      return { response_action: 'update', view: notice('Sending…') }
    },
  }
}

export type CodeThreadReply = ReturnType<typeof createCodeThreadReply>
