/**
 * `ignore.title`'s patterns: globs (`*` any run of characters, `?` one character, everything else literal),
 * matched without regard to case against the whole title. Titles are written by anyone who can open a pull
 * request, so the matcher never backtracks: it steps a set of pattern positions through the title once
 * (a Thompson-style simulation), O(title length x pattern length) whatever the input.
 */
export const MAX_TITLE_GLOB_LENGTH = 200

export type TitleGlob = readonly string[]

/** The pattern's characters, runs of `*` collapsed (they match the same), lower-cased. */
export function compileTitleGlob(pattern: string): TitleGlob {
  const chars: string[] = []
  for (const c of Array.from(pattern.toLowerCase())) if (!(c === '*' && chars.at(-1) === '*')) chars.push(c)
  return chars
}

export function titleGlobProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'an empty pattern matches no title; write a glob such as "WIP*" or "*[skip slack]*"'
  if (pattern.length > MAX_TITLE_GLOB_LENGTH) return `the pattern is ${pattern.length} characters long; keep it to ${MAX_TITLE_GLOB_LENGTH}`
  return undefined
}

export function matchesTitleGlob(glob: TitleGlob, title: string): boolean {
  // states[i]: the pattern's first i characters match the title read so far.
  let states = new Uint8Array(glob.length + 1)
  let next = new Uint8Array(glob.length + 1)
  const close = (s: Uint8Array) => {
    // A `*` may match nothing: reaching it reaches the position after it too.
    for (let i = 0; i < glob.length; i++) if (s[i] && glob[i] === '*') s[i + 1] = 1
  }
  states[0] = 1
  close(states)
  for (const c of Array.from(title.toLowerCase())) {
    next.fill(0)
    let any = false
    for (let i = 0; i < glob.length; i++) {
      if (!states[i]) continue
      const p = glob[i]
      if (p === '*') { next[i] = 1; any = true } else if (p === '?' || p === c) { next[i + 1] = 1; any = true }
    }
    if (!any) return false
    close(next)
    ;[states, next] = [next, states]
  }
  return states[glob.length] === 1
}
