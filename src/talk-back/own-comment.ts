/**
 * prherald's own last line on a comment it made from Slack (a thread reply, a reply in a code thread):
 * `[//]: # (prherald-reply …)`, a Markdown link reference definition every host keeps and none shows.
 */
const OWN_LAST_LINE = /\n\[\/\/\]: # \(prherald-reply [^)\n]*\)\s*$/

/**
 * Whether a comment's body is one prherald made from Slack: its webhook comes back like anyone's, and the
 * mirror must not post it into the thread it came from (no echo). Only the final line counts, as prherald
 * writes it; a person's text cannot keep a marker (it is stripped from what they write).
 */
export function isPrheraldComment(body: string): boolean {
  return OWN_LAST_LINE.test(`\n${body}`)
}
