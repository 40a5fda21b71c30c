import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.ts'

/** Issue 23.8: secrets are taken out of the values before a line is rendered, in both formats. */
const logLines = (format: 'json' | 'pretty', redact: string[], log: (l: ReturnType<typeof createLogger>) => void) => {
  const lines: string[] = []
  log(createLogger({ format, level: 'debug', write: (l) => lines.push(l), redact }))
  return lines
}

describe('log redaction', () => {
  it.each(['json', 'pretty'] as const)('%s: a secret holding " or \\\\ is redacted, not escaped and printed', (format) => {
    const secret = 'se"cr\\et-value'
    const lines = logLines(format, [secret], (l) => l.error('failed', { error: `auth with ${secret} refused`, list: [secret] }))
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain('cr\\\\et')
    expect(lines[0]).not.toContain('se\\"cr')
    expect(lines[0]).not.toContain('cr\\et')
    expect(lines[0]).toContain('[redacted]')
    if (format === 'json') expect(JSON.parse(lines[0]!)).toMatchObject({ error: 'auth with [redacted] refused', list: ['[redacted]'] })
  })

  it('a secret under 4 characters is redacted where it is a whole value, and left inside other words', () => {
    const [line] = logLines('json', ['ab1'], (l) => l.info('value', { token: 'ab1', note: 'cab12' }))
    expect(JSON.parse(line!)).toMatchObject({ token: '[redacted]', note: 'cab12' })
  })

  it('the message itself is redacted too', () => {
    const [line] = logLines('json', ['xoxb-123-secret'], (l) => l.warn('token xoxb-123-secret refused'))
    expect(JSON.parse(line!).msg).toBe('token [redacted] refused')
  })
})

/** Issue 30.6: control characters from a request (a header, a login) never reach the log raw, in either format. */
describe('control characters', () => {
  const hostile = 'id\u009b31mred\u001b[2J\u007fend\u2028next'

  it.each(['json', 'pretty'] as const)('%s: C0, DEL, C1 and line separators are written as \\uXXXX, the line stays one line', (format) => {
    const [line] = logLines(format, [], (l) => l.warn(`rejected ${hostile}`, { delivery_id: hostile, list: [hostile] }))
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/)
    expect(line).toContain('id\\u009b31mred\\u001b[2J\\u007fend\\u2028next')
    if (format === 'json') expect(JSON.parse(line!)).toMatchObject({ msg: `rejected ${hostile}`, delivery_id: hostile, list: [hostile] })
  })
})
