/**
 * In YAML `#` starts a comment, so `channel: #pull-requests` is the key `channel` with no value, and the schema
 * alone would say "expected string, found null". When a channel or mention came out empty and its line in the
 * file holds a `#`, this explains what happened and what to write instead; otherwise undefined.
 */
export function emptyValueHint(path: ReadonlyArray<string | number>, lineText: string | undefined): string | undefined {
  if (lineText === undefined || !lineText.includes('#')) return undefined
  const last = path[path.length - 1]
  // channel, one of channels (an ID, or { id: … }), or the channels list itself
  const isChannel = last === 'channel' || last === 'channels' || path[path.length - 2] === 'channels' || (last === 'id' && path[path.length - 3] === 'channels')
  const isMention = last === 'mentions' || path[path.length - 2] === 'mentions'
  if (!isChannel && !isMention) return undefined
  const written = lineText.trim().length > 60 ? `${lineText.trim().slice(0, 57)}...` : lineText.trim()
  const why = `is empty: YAML reads everything from # to the end of the line as a comment, so \`${written}\` sets no value`
  return isChannel
    ? `${why}; quote the value, and use the channel ID rather than its #name, e.g. channel: "C0123456789" (in Slack: open the channel, click its name, copy the ID at the bottom)`
    : `${why}; quote each mention, e.g. mentions: ["<!subteam^S0123ABCD>", "<@U0123ABCD>"]`
}
