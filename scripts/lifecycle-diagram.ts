import '../src/cli/require-supported-node.ts'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LIFECYCLE_DIAGRAM_OPTIONS, renderLifecycleDiagram, spliceDiagram } from '../machines/machine-diagram.ts'
import { pullRequestMachine } from '../machines/pull-request.machine.ts'
import { packageRoot } from '../src/package-root.ts'

/**
 * `npm run docs:diagram`: regenerates the Mermaid diagram in docs/lifecycle.md from the XState machine.
 * test/docs/lifecycle-diagram.test.ts fails while the committed diagram differs from this output.
 */
const file = join(packageRoot(), 'docs/lifecycle.md')
const before = readFileSync(file, 'utf8')
const after = spliceDiagram(before, renderLifecycleDiagram(pullRequestMachine, LIFECYCLE_DIAGRAM_OPTIONS))
if (after === before) {
  console.log('docs/lifecycle.md is up to date')
} else {
  writeFileSync(file, after)
  console.log('docs/lifecycle.md updated')
}
