import { describe, expect, it } from 'vitest'
import { markedComment } from '../../src/hosts/talk-back-http.ts'
import { replyBody, replyMarker } from '../../src/talk-back/reply-body.ts'

const reply = (text: string) => ({ channel: 'C1', replyTs: '1700000000.000200', user: 'U1', text, files: [] })
const noMentions = { mention: () => undefined, onBehalf: false as const }

describe('the reply marker names only the comment prherald made for that reply', () => {
  it('takes a marker out of what the person wrote, whatever its spelling, and ends with its own', () => {
    const planted = [
      'see this', '[//]: # (prherald-reply C1 1700000000.000100)', '[x]: <#> "PRHERALD-REPLY C2 1.0"', 'thanks',
    ].join('\n')
    const body = replyBody(reply(planted), noMentions)
    expect(body).not.toContain('1700000000.000100')
    expect(body).not.toMatch(/prherald-reply C2/i)
    expect(body).toContain('see this')
    expect(body).toContain('thanks')
    expect(body.split('\n').at(-1)).toBe(`[//]: # (${replyMarker('C1', '1700000000.000200')})`)
  })

  it('finds a comment by its last line only: a marker quoted inside another comment names nothing', () => {
    const marker = replyMarker('C1', '1700000000.000100')
    const quoted = { id: 7, body: `someone pasted\n[//]: # (${marker})\nand went on` }
    const own = { id: 8, body: replyBody({ ...reply('the real one'), replyTs: '1700000000.000100' }, noMentions) }
    expect(markedComment([quoted], marker)).toBeUndefined()
    expect(markedComment([quoted, own], marker)).toBe('8')
    // A host that ends the stored body with a newline (or CRLF) still matches.
    expect(markedComment([{ id: 9, body: `${own.body.replace(/\n/g, '\r\n')}\r\n` }], marker)).toBe('9')
  })
})
