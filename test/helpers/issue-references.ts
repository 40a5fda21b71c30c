/**
 * The places in a text that name an issue of prherald's tracker: "issue 33", "issues 21-25", "issue-31",
 * "(#12)". People who read the docs and --help do not have those issues. A pull request's number in an
 * example ("PR #12", "PRs #803, #835"), another repository's issue ("nodejs/node#65446") and `!N` are not
 * references to the tracker and are left alone.
 */
export function issueReferences(text: string): string[] {
  // An HTML anchor keeps an old link working and is not shown to the reader.
  const lines = text.replace(/<a id="[^"]*"><\/a>/g, '').split('\n')
  const found: string[] = []
  lines.forEach((line, index) => {
    const words = [...line.matchAll(/\bissues?[ -]\d+/gi)].map((m) => m[0])
    const hashes = [...line.matchAll(/(?<![\w/.-])#\d+\b/g)]
      .filter((m) => !/\b(?:PRs?|MRs?|pull requests?)(?: #\d+,)* $/i.test(line.slice(0, m.index)))
      .map((m) => m[0])
    for (const reference of [...words, ...hashes]) found.push(`line ${index + 1}: ${reference} in "${line.trim()}"`)
  })
  return found
}
