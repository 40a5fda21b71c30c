import { describe, expect, it } from 'vitest'
import { ALICE, BOB, TEST_PUBLIC_URL } from '../helpers/talk-back-setup.ts'
import { scenario, textOf } from './review-scenario.ts'

describe.each(['github', 'gitlab', 'bitbucket'] as const)('review from Slack on %s', (provider) => {
  const s = scenario(provider)

  it('approve from the modal: the review at the host as the person, for the head the message showed; the message moves only with the webhook', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    const opened = await s.open('approve')
    expect(opened.view).toMatchObject({ type: 'modal', callback_id: 'prherald_review_form', title: { text: 'Approve' } })
    // Only an opaque id goes to Slack: nothing that names the pull request.
    expect(String(opened.view.private_metadata)).toMatch(/^[\w-]{20,}$/)
    expect(String(opened.view.private_metadata)).not.toMatch(/#|acme|Hello|api/)
    expect(textOf(opened.view)).toContain('alice')

    const updatesBefore = s.h.slack.count('chat.update')
    const answer = await s.submit(opened, 'Looks good')
    expect(answer?.response_action).toBe('update')
    expect(textOf(answer!.view!)).toContain('Submitting')
    expect(await s.outcome(opened.viewId)).toContain('Approved on')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ pr: s.facts.pr, kind: 'approve', author: 'alice', ...(provider === 'bitbucket' ? {} : { sha: s.facts.head }) })])
    // GitLab and Bitbucket take the text as a second call: a comment by the person.
    if (provider !== 'github') expect(s.fake().comments).toEqual([expect.objectContaining({ body: 'Looks good', author: 'alice' })])
    expect(s.h.slack.count('chat.update')).toBe(updatesBefore)
    const audit = s.h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')
    expect(audit).toEqual([expect.objectContaining({ slack_user: ALICE, host: provider, host_login: 'alice', action: 'approve', outcome: 'done' })])
    expect(s.h.service!.logs.join('\n')).not.toMatch(/(ghu|at)_[0-9a-f]{24}/)

    await s.send(s.facts.approvedBy('alice'))
    expect(JSON.stringify(s.message().blocks)).toMatch(/Approved by [^"]*alice/i)
  })

  it('request changes with no text is refused by the modal; with text it is made', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    const opened = await s.open('request_changes')
    expect(JSON.stringify(opened.view.blocks)).toContain('"optional":false')
    expect(await s.submit(opened, '   ')).toMatchObject({ response_action: 'errors', errors: { review_text: expect.stringContaining('needs a comment') } })
    expect(s.fake().reviews).toEqual([])
    expect((await s.submit(opened, 'Please add a test'))?.response_action).toBe('update')
    expect(await s.outcome(opened.viewId)).toContain('Changes requested on')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ kind: 'request_changes', author: 'alice' })])
  })

  it('an empty comment is refused by the modal, and the field is required; with text it is posted', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    const opened = await s.open('comment')
    expect(JSON.stringify(opened.view.blocks)).toContain('"optional":false')
    expect(await s.submit(opened, '  ')).toMatchObject({ response_action: 'errors', errors: { review_text: expect.stringContaining('empty one is not posted') } })
    expect(s.fake().reviews).toEqual([])
    expect(s.fake().comments).toEqual([])
    expect((await s.submit(opened, 'One question: why?'))?.response_action).toBe('update')
    expect(await s.outcome(opened.viewId)).toContain('Commented on')
  })

  it('the author approving their own pull request is shown the host\'s refusal in its words', async () => {
    await s.start()
    await s.link(BOB, s.facts.author)
    const opened = await s.open('approve', BOB)
    await s.submit(opened, undefined, BOB)
    const said = { github: 'Can not approve your own pull request', gitlab: '401', bitbucket: 'You can&#39;t approve your own pull request.' }[provider]
    const shown = await s.outcome(opened.viewId)
    expect(shown).toContain('refused')
    if (provider !== 'gitlab') expect(shown.replaceAll('\'', '&#39;')).toContain(said)
    expect(s.fake().reviews).toEqual([])
    expect(s.h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')).toEqual([expect.objectContaining({ outcome: 'refused', host_login: s.facts.author })])
  })

  it('a person who is not linked is offered the link, and no form is opened', async () => {
    await s.start()
    const opened = await s.open('approve', BOB)
    expect(opened.view.private_metadata).toBeUndefined()
    expect(opened.view.submit).toBeUndefined()
    expect(textOf(opened.view)).toContain(`${TEST_PUBLIC_URL}/oauth/${provider}/start?state=`)
  })
})

describe.each(['github', 'gitlab', 'bitbucket'] as const)('a head that moved after the form opened, on %s', (provider) => {
  const s = scenario(provider)
  it('the approval is not made: the modal says new commits were pushed, and nothing reaches the host', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    const opened = await s.open('approve')
    s.fake().heads.set(s.facts.pr, '0123456789abcdef0123456789abcdef01234567')
    await s.submit(opened, 'LGTM')
    const shown = await s.outcome(opened.viewId)
    expect(shown).toContain('new commits were pushed since you opened this (the head is now 0123456')
    expect(s.fake().reviews).toEqual([])
    expect(s.fake().comments).toEqual([])
  })
})

// GitLab's "request changes" is bulk_publish with a reviewer state: it publishes all of the person's drafts, and
// GitLab keeps the state only from one of the merge request's reviewers.
describe('request changes on GitLab', () => {
  const s = scenario('gitlab')
  it('with a draft comment of the person\'s pending, nothing is sent: the modal says to publish or delete it first', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    s.fake().drafts.push({ id: 501, pr: s.facts.pr, note: 'half a thought', author: 'alice' })
    const opened = await s.open('request_changes')
    await s.submit(opened, 'Please add a test')
    const shown = await s.outcome(opened.viewId)
    expect(shown).toContain('you have 1 unpublished draft comment on this merge request')
    expect(shown).toContain('publish or delete them on GitLab first, or review there')
    expect(shown).not.toContain('Changes requested on')
    expect(s.fake().reviews).toEqual([])
    expect(s.fake().comments).toEqual([])
    expect(s.fake().drafts).toEqual([expect.objectContaining({ id: 501, author: 'alice' })])
  })

  it('someone else\'s drafts are theirs: the person\'s review is made, and those stay unpublished', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    s.fake().drafts.push({ id: 502, pr: s.facts.pr, note: 'not yet', author: 'carol' })
    const opened = await s.open('request_changes')
    await s.submit(opened, 'Please add a test')
    expect(await s.outcome(opened.viewId)).toContain('Changes requested on')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ kind: 'request_changes', author: 'alice' })])
    expect(s.fake().drafts).toHaveLength(1)
  })

  it('a person who is not a reviewer is told so, instead of "Changes requested" that GitLab would not record', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    s.fake().reviewers.set(s.facts.pr, ['carol'])
    const opened = await s.open('request_changes')
    await s.submit(opened, 'Please add a test')
    const shown = await s.outcome(opened.viewId)
    expect(shown).toContain('you are not a reviewer of this merge request')
    expect(shown).not.toContain('Changes requested on')
    expect(s.fake().reviews).toEqual([])
    expect(s.fake().comments).toEqual([])
  })
})

// GitHub takes an approval's text in the review itself; GitLab and Bitbucket comment after approving.
describe.each(['gitlab', 'bitbucket'] as const)('approving with text on %s', (provider) => {
  const s = scenario(provider)
  it('an approval whose comment fails is reported, not hidden', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    s.fake().failComments = 1
    const opened = await s.open('approve')
    await s.submit(opened, 'Nice work')
    expect(await s.outcome(opened.viewId)).toContain('but your comment was not posted')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ kind: 'approve', author: 'alice' })])
    expect(s.fake().comments).toEqual([])
    expect(s.h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')).toEqual([expect.objectContaining({ outcome: 'comment_failed' })])
  })
})

describe('a slow host', () => {
  const s = scenario('gitlab')
  it('the modal opens as "Loading…" within the trigger\'s 3 s, then shows the form', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    s.fake().apiDelayMs = 1800
    const opened = await s.open('request_changes')
    expect(textOf(opened.opened)).toContain('Loading')
    expect(opened.view.callback_id).toBe('prherald_review_form')
    expect(opened.view.private_metadata).toMatch(/^[\w-]{20,}$/)
  })
})
