import { describe, expect, it } from 'vitest'
import { decodeThreadReply } from '../../src/slack/decode-thread-reply.ts'

/** Issue 33.2: which `message` events are a thread reply, its edit or its deletion (pure). */
const THREAD = '1700000000.000100'
const reply = { type: 'message', channel: 'C1', user: 'U1', text: 'hi', ts: '1700000001.000200', thread_ts: THREAD }

describe('decodeThreadReply', () => {
  it('a reply, one also sent to the channel, and one with files (named with their Slack link)', () => {
    expect(decodeThreadReply(reply)).toEqual({ reply: { action: 'post', channel: 'C1', threadTs: THREAD, replyTs: reply.ts, user: 'U1', text: 'hi', files: [] } })
    expect(decodeThreadReply({ ...reply, subtype: 'thread_broadcast' })).toMatchObject({ reply: { action: 'post', replyTs: reply.ts } })
    const files = [{ name: 'trace.png', permalink: 'https://acme.slack.com/files/U1/F1/trace.png', url_private: 'https://files.slack.com/x' }]
    expect(decodeThreadReply({ ...reply, subtype: 'file_share', files })).toMatchObject({ reply: { files: [{ name: 'trace.png', url: files[0]!.permalink }] } })
  })

  it('the thread\'s parent, a channel message, bots and other subtypes are not replies', () => {
    expect(decodeThreadReply({ ...reply, ts: THREAD })).toEqual({ ignored: 'not_a_reply' })
    expect(decodeThreadReply({ ...reply, thread_ts: undefined })).toEqual({ ignored: 'not_a_reply' })
    expect(decodeThreadReply({ ...reply, bot_id: 'B1' })).toEqual({ ignored: 'bot' })
    expect(decodeThreadReply({ ...reply, subtype: 'channel_join' })).toEqual({ ignored: 'other_subtype' })
    expect(decodeThreadReply({ type: 'app_home_opened', user: 'U1' })).toEqual({ ignored: 'not_a_reply' })
  })

  it('an edit counts when its text or files changed; an unfurl changes neither', () => {
    const changed = (message: object, previous: object) => ({ type: 'message', subtype: 'message_changed', channel: 'C1', message, previous_message: previous })
    expect(decodeThreadReply(changed({ ...reply, text: 'hello' }, reply))).toMatchObject({ reply: { action: 'edit', text: 'hello', replyTs: reply.ts } })
    expect(decodeThreadReply(changed({ ...reply, attachments: [{ title: 'unfurl' }] }, reply))).toEqual({ ignored: 'unchanged' })
    expect(decodeThreadReply(changed({ ...reply, bot_id: 'B1', text: 'x' }, reply))).toEqual({ ignored: 'bot' })
  })

  it('a deletion names the reply by deleted_ts', () => {
    expect(decodeThreadReply({ type: 'message', subtype: 'message_deleted', channel: 'C1', deleted_ts: reply.ts, previous_message: reply }))
      .toEqual({ reply: { action: 'delete', channel: 'C1', threadTs: THREAD, replyTs: reply.ts, user: 'U1' } })
  })
})
