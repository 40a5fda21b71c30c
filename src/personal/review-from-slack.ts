import { randomBytes } from 'node:crypto'
import { pullRequestKey, referenceOf, splitRepository } from '../../machines/pull-request-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { HostWords } from '../hosts/contract.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { REVIEW_FORM, type ReviewActionClick, type ReviewSubmission } from '../slack/decode-review-action.ts'
import type { ModalView, SlackClient } from '../slack/slack-client.ts'
import type { ReviewForm, ReviewFormStore } from '../store/review-form-store.ts'
import type { ReplyCommentStore } from '../store/reply-comment-store.ts'
import type { MessageStore, PullRequestRef } from '../store/store.ts'
import { auditTalkBack, PER_MINUTE, type PersonLimits } from '../talk-back/person-limits.ts'
import { formView, linkView, noticeView, outcomeView, type FormSubject } from './review-form-views.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'

export interface ReviewFromSlackDeps {
  /** The configured hosts (connectHosts): a pull request's host words come from its own. */
  hosts: HostSet
  talkBack: Pick<TalkBackService, 'settingsFor' | 'linkUrl' | 'tokenFor' | 'as'>
  store: ReviewFormStore & Pick<ReplyCommentStore, 'messageAt'> & Pick<MessageStore, 'findMessages'>
  slack: Pick<SlackClient, 'openView' | 'updateView'>
  limits: PersonLimits
  logger: Logger
  now: () => number
}

/** A form lives an hour: long enough to write a review, short enough that a forgotten one is not a standing permission. */
export const FORM_TTL_MS = 60 * 60_000
/** How long opening may look things up before the modal opens as "Loading…" (a trigger_id lasts 3 s). */
const PREPARE_MS = 1500

/** What a view_submission is answered with, in the HTTP 200's body or the Socket Mode ack's payload. */
export type SubmissionAnswer = Record<string, unknown>

const update = (view: ModalView): SubmissionAnswer => ({ response_action: 'update', view })
const fieldError = (text: string): SubmissionAnswer => ({ response_action: 'errors', errors: { [REVIEW_FORM.block]: text } })

/**
 * Reviews from Slack (docs/talk-back.md, "Review from Slack"): a click on a message's review action opens a
 * modal (views.open with the click's trigger_id); its submission is answered at once ("Submitting…"), the
 * review is made at the host with the person's own token, for the head commit the message showed, and the
 * modal is updated with the outcome. What is reviewed comes from the stored message the click came from
 * and, at submission, from the stored form the modal's id names: never from what Slack's client sends back.
 * The message itself changes only when the host's webhook arrives.
 */
export function createReviewFromSlack(deps: ReviewFromSlackDeps) {
  const { logger } = deps
  const wordsOf = (provider: string): HostWords => {
    const own = deps.hosts.get(provider)
    if (!own) throw new PrheraldError('config_invalid', `the pull request's host ${provider} is not configured on this server`, { fix: `configure ${provider} under hosts: again, or ignore this older message` })
    return own.host.words
  }
  /** The pull request as its stored message names it (the form keeps only its key). */
  const subjectOf = async (pr: PullRequestRef): Promise<FormSubject> => {
    const hostName = wordsOf(pr.provider).name
    const context = (await deps.store.findMessages(pr))[0]?.lifecycle.context
    return context
      ? { reference: referenceOf(context), title: context.title, url: context.url, hostName }
      : { reference: `${wordsOf(pr.provider).reference}${pr.prNumber}`, title: pr.repository, url: '', hostName }
  }

  /** The view the click opens: the form, or why there is none. Writes the form's row before it is shown. */
  const prepare = async (click: ReviewActionClick): Promise<ModalView> => {
    const pr = await deps.store.messageAt(click.channel, click.messageTs)
    const message = pr && (await deps.store.findMessages(pr)).find((m) => m.channel === click.channel && m.ts === click.messageTs)
    if (!message) return noticeView(click.action, 'prherald does not know this message (any more), so it cannot tell what to review.')
    const { state, context } = message.lifecycle
    const host = wordsOf(message.provider)
    // `unannounced` with a ts: posted, and its batch not yet committed (a moment).
    if (state === 'unannounced') return noticeView(click.action, `This ${host.pullRequest}'s message is still being posted; try again in a moment.`)
    if (state !== 'open') return noticeView(click.action, `This ${host.pullRequest} is ${state === 'draft' ? 'a draft' : state}: there is nothing to review from Slack.`)
    if (!deps.talkBack.settingsFor(message.provider, message.repository).reviews) return noticeView(click.action, 'Reviews from Slack are off for this repository.')
    const token = await deps.talkBack.tokenFor(click.user, message.provider)
    if (!token) return linkView(click.action, host.name, await deps.talkBack.linkUrl(click.user, message.provider))
    if (click.action === 'request_changes') {
      const api = deps.talkBack.as(message.provider, token.accessToken)
      if (api?.canRequestChanges && !(await api.canRequestChanges())) {
        return noticeView(click.action, `${host.name} on this server cannot request changes through its API (docs/gitlab.md says which versions can): approve or comment instead.`)
      }
    }
    const form: ReviewForm = {
      id: randomBytes(18).toString('base64url'),
      pr: { provider: message.provider, repository: message.repository, prNumber: message.prNumber },
      headSha: context.head ?? '', action: click.action, slackUser: click.user, expiresAt: deps.now() + FORM_TTL_MS,
    }
    await deps.store.saveReviewForm(form)
    return formView(click.action, { reference: referenceOf(context), title: context.title, url: context.url, hostName: host.name }, token.login, form.id)
  }

  /** Makes the review at the host and puts its outcome in the modal; one audit line whatever happened. */
  const send = async (form: ReviewForm, submission: ReviewSubmission): Promise<void> => {
    const words = wordsOf(form.pr.provider)
    const subject = await subjectOf(form.pr)
    const audit = (login: string | undefined, outcome: string) => auditTalkBack(logger, {
      slackUser: form.slackUser, host: form.pr.provider, login, action: form.action, pr: pullRequestKey(form.pr), outcome,
    })
    const token = await deps.talkBack.tokenFor(submission.user, form.pr.provider)
    const api = token ? deps.talkBack.as(form.pr.provider, token.accessToken) : undefined
    if (!token || !api) {
      audit(undefined, 'not_linked')
      return deps.slack.updateView(submission.viewId, linkView(form.action, words.name, await deps.talkBack.linkUrl(submission.user, form.pr.provider)))
    }
    let view: ModalView
    try {
      const outcome = await api.review({ ...splitRepository(form.pr.repository), number: form.pr.prNumber }, { kind: form.action, body: submission.text || undefined, headSha: form.headSha })
      const failed = outcome.steps.find((step) => !step.ok)
      const says = failed && !failed.ok ? (isPrheraldError(failed.error) ? failed.error.hostSays : undefined) ?? 'no answer' : undefined
      view = outcomeView(form.action, subject, says === undefined ? { ok: true } : { ok: 'partial', says })
      audit(token.login, says === undefined ? 'done' : 'comment_failed')
    } catch (error) {
      const says = isPrheraldError(error) ? error.hostSays : undefined
      view = outcomeView(form.action, subject, { ok: false, says })
      audit(token.login, says === undefined ? 'failed' : 'refused')
      if (says === undefined) logger.warn('review from slack not sent', { pr_key: pullRequestKey(form.pr), ...errorFields(error) })
    }
    await deps.slack.updateView(submission.viewId, view)
  }

  return {
    /**
     * Opens the modal for a click within Slack's 3 s: at once when the look-ups are quick, else "Loading…" first.
     * Resolves once views.open answered, which is when the click is acknowledged (HTTP 200 or Socket Mode ack):
     * the rest (a slow token refresh, the view's update) follows the acknowledgement, never holds it.
     */
    async open(click: ReviewActionClick): Promise<void> {
      const prepared = prepare(click).catch((error: unknown) => {
        logger.warn('review form not prepared', errorFields(error))
        return noticeView(click.action, 'prherald could not prepare this review just now; try again in a moment.')
      })
      let timer: NodeJS.Timeout | undefined
      const early = await Promise.race([prepared, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), PREPARE_MS) })])
      clearTimeout(timer)
      if (early) {
        await deps.slack.openView(click.triggerId, early)
        return
      }
      const viewId = await deps.slack.openView(click.triggerId, noticeView(click.action, 'Loading…'))
      void prepared.then((view) => deps.slack.updateView(viewId, view)).catch(async (error: unknown) => {
        // The person is looking at "Loading…": told in the modal, as a failed look-up is.
        logger.warn('review form not shown', errorFields(error))
        await deps.slack.updateView(viewId, noticeView(click.action, 'prherald could not prepare this review just now; try again in a moment.'))
          .catch(() => undefined)
      })
    },

    /** Answers a submission at once; the review itself runs after the answer. */
    async submit(submission: ReviewSubmission): Promise<SubmissionAnswer> {
      const form = submission.formId === '' ? undefined : await deps.store.reviewForm(submission.formId)
      if (!form || form.expiresAt <= deps.now()) {
        logger.warn('rejected slack interaction', { reason: form ? 'review_form_expired' : 'unknown_review_form', slack_user: submission.user })
        return update(noticeView(form?.action, 'This review form is not one prherald can take (it expired, or was never opened): open a new one from the message.'))
      }
      if (form.slackUser !== submission.user) {
        logger.warn('rejected slack interaction', { reason: 'not_the_form_owner', slack_user: submission.user })
        return update(noticeView(form.action, 'This review form was opened by someone else: open your own from the message.'))
      }
      if (form.submitted) return update(noticeView(form.action, 'This review was already submitted.'))
      if (form.action === 'request_changes' && submission.text === '') return fieldError('Say what should change: a request for changes needs a comment.')
      // A comment with no text is nothing to post (GitHub refuses one: its review `body` is "Required when using
      // REQUEST_CHANGES or COMMENT", REST "Create a review for a pull request"): said in the field, not after.
      if (form.action === 'comment' && submission.text === '') return fieldError('Write the comment: an empty one is not posted.')
      if (!(await deps.limits.take('reviews', submission.user))) {
        logger.info('ignored slack interaction', { reason: 'review_rate_limited', slack_user: submission.user })
        return fieldError(`You have sent ${PER_MINUTE.reviews} reviews from Slack in the last minute; please wait a moment and submit again.`)
      }
      if (!(await deps.store.takeReviewForm(form.id))) return update(noticeView(form.action, 'This review was already submitted.'))
      void send(form, submission).catch(async (error: unknown) => {
        // Before the host was asked (the store, a token refresh) or while telling the outcome: said once, in the log and the modal.
        logger.warn('review from slack failed', { pr_key: pullRequestKey(form.pr), ...errorFields(error) })
        await deps.slack.updateView(submission.viewId, noticeView(form.action, 'prherald could not finish this review; try again from the message in a moment.'))
          .catch(() => undefined)
      })
      return update(noticeView(form.action, 'Submitting…'))
    },
  }
}

export type ReviewFromSlack = ReturnType<typeof createReviewFromSlack>
