import { describe, expect, it } from 'vitest'
import { decodeInteraction } from '../../src/slack/decode-interaction.ts'
import { clickPayload } from '../helpers/slack-interaction.ts'

const form = (payload: unknown) => new URLSearchParams({ payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }).toString()

describe('decodeInteraction', () => {
  it('reads a click on prherald\'s button: the pull request from the value, the person from user.id', () => {
    const payload = clickPayload({ user: 'U0123ABCD', value: 'bitbucket:acme-team/web-app#1042' })
    expect(decodeInteraction(form(payload))).toEqual({
      click: {
        kind: 'review_click', provider: 'bitbucket', owner: 'acme-team', repo: 'web-app', number: 1042, user: 'U0123ABCD',
        deliveryId: `slack:${payload.trigger_id as string}`, channel: 'C0000000001', messageTs: '1700000000.000100',
      },
      origin: { teamId: 'T0ACME', appId: 'A0PRHERALD' },
    })
    // prherald has no home tab or modal: a click on a view is not on one of its messages.
    expect(decodeInteraction(form({ ...payload, container: { type: 'view', view_id: 'V1' } }))).toEqual({ ignored: 'not_on_a_message' })
  })

  it('accepts Enterprise Grid user ids (W…)', () => {
    expect(decodeInteraction(form(clickPayload({ user: 'W0123ABCD', value: 'github:acme/api#7' })))).toMatchObject({ click: { user: 'W0123ABCD' } })
  })

  it('reads an owner with slashes (a nested group): the repository is the last segment', () => {
    expect(decodeInteraction(form(clickPayload({ user: 'U0123ABCD', value: 'github:platform/backend/api#7' })))).toMatchObject({
      click: { provider: 'github', owner: 'platform/backend', repo: 'api', number: 7 },
    })
  })

  it('ignores other interactions, other views and other buttons', () => {
    // A view_submission is decoded now (review from Slack), but only the review form's: another view is not ours.
    expect(decodeInteraction(form({ type: 'view_submission' }))).toEqual({ ignored: 'not_our_view' })
    expect(decodeInteraction(form({ type: 'shortcut' }))).toEqual({ ignored: 'not_a_button_click' })
    expect(decodeInteraction(form(clickPayload({ user: 'U0123ABCD', value: 'github:acme/api#7', actionId: 'something_else' })))).toEqual({ ignored: 'not_our_button' })
  })

  it.each([
    ['no payload field', 'token=abc'],
    ['a payload that is not JSON', form('{not json')],
    ['a value that names no pull request', form(clickPayload({ user: 'U0123ABCD', value: 'acme/api#7' }))],
    ['a value of an unknown provider', form(clickPayload({ user: 'U0123ABCD', value: 'sourcehut:acme/api#7' }))],
    ['a user id that is not one', form(clickPayload({ user: '<!channel>', value: 'github:acme/api#7' }))],
  ])('calls %s an invalid payload', (_what, body) => {
    expect(decodeInteraction(body)).toEqual({ ignored: 'invalid_payload' })
  })
})
