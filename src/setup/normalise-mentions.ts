import { PrheraldError } from '../errors.ts'

const TOKEN = /^(<@[UW][A-Z0-9]+>|<!subteam\^S[A-Z0-9]+(\|[^>]*)?>|<!here>|<!channel>)$/

/**
 * The mentions as typed (`U0123ABCD, @here, <!subteam^S0456>`) as Slack's mention tokens, the form
 * config.yaml takes. Throws on anything else, before a file is written.
 */
export function normaliseMentions(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean).map((raw) => {
    if (TOKEN.test(raw)) return raw
    const word = raw.replace(/^@/, '')
    if (word === 'here' || word === 'channel') return `<!${word}>`
    if (/^[UW][A-Z0-9]{2,}$/.test(word)) return `<@${word}>`
    if (/^S[A-Z0-9]{2,}$/.test(word)) return `<!subteam^${word}>`
    throw new PrheraldError('usage', `"${raw}" is not a Slack mention`, {
      fix: 'give member IDs (U0123ABCD), user group IDs (S0123ABCD), here or channel, separated by commas',
    })
  })
}
