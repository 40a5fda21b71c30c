import { createRequire } from 'node:module'

interface ExampleGroup {
  name: string
  examples: Array<Record<string, unknown>>
}

const require = createRequire(import.meta.url)
// The package ships GitHub's own recorded webhook payloads as one JSON index: [{ name, examples: [...] }].
const groups = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[]

/**
 * A deep copy of the first real GitHub example payload for `event` (X-GitHub-Event) with `action`, if given,
 * that `pick` accepts (`pick` sees the shared original: read it, do not modify it). Throws when there is
 * none, naming the actions that do exist, so a test never silently runs on an empty object.
 */
export function githubExample(event: string, action?: string, pick?: (payload: Record<string, unknown>) => boolean): Record<string, unknown> {
  const group = groups.find((g) => g.name === event)
  const example = group?.examples.find((p) => (action === undefined || p.action === action) && (!pick || pick(p)))
  if (!example) {
    const actions = [...new Set(group?.examples.map((p) => String(p.action ?? '(none)')))].join(', ')
    throw new Error(`no GitHub example payload for ${event}${action ? `/${action}` : ''}${pick ? ' matching pick' : ''}; `
      + (group ? `its examples have actions: ${actions}` : 'no such event in @octokit/webhooks-examples'))
  }
  return structuredClone(example)
}
