import '../src/cli/require-supported-node.ts'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../src/package-root.ts'
import { withSampleBlocks } from '../test/helpers/markdown-blocks.ts'
import { runSampleRecipes, sampleDocuments } from './samples/sample-recipes.ts'

/**
 * `npm run docs:samples`: runs every sample recipe (the built commands against fake Slack and GitHub, in a
 * fresh directory) and rewrites the `<!-- sample: <name> -->` blocks of README.md and docs/*.md with what
 * they print. test/docs/samples.test.ts fails when a block differs from this.
 */
const outputs = await runSampleRecipes()
const used = new Set<string>()
let unknown = 0
for (const { file, text, blocks } of sampleDocuments()) {
  for (const { name } of blocks) {
    if (outputs.has(name)) used.add(name)
    else { unknown++; console.error(`${file}: no recipe named ${name} (fix: one of ${[...outputs.keys()].join(', ')})`) }
  }
  const rewritten = withSampleBlocks(text, outputs)
  if (rewritten !== text) {
    writeFileSync(join(packageRoot(), file), rewritten)
    console.log(`rewrote ${file}`)
  }
}
for (const name of outputs.keys()) if (!used.has(name)) console.error(`recipe ${name} is shown in no document`)
process.exit(unknown > 0 ? 1 : 0)
