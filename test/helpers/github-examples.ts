import { createRequire } from 'node:module'

interface ExampleGroup {
  name: string
  examples: Array<Record<string, unknown>>
}

const require = createRequire(import.meta.url)
// The package ships GitHub's own recorded webhook payloads as one JSON index.
const groups = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[]

/**
 * A deep copy of a real GitHub example payload for `event` (X-GitHub-Event), optionally with `action` and a
 * further predicate. Throws when there is none, so a test never silently runs on an empty object.
 */
export function githubExample(event: string, action?: string, pick: (payload: Record<string, unknown>) => boolean = () => true): Record<string, unknown> {
  const group = groups.find((g) => g.name === event)
  const example = group?.examples.find((p) => (action === undefined || p.action === action) && pick(p))
  if (!example) throw new Error(`no GitHub example payload for ${event}${action ? `/${action}` : ''}`)
  return structuredClone(example)
}
