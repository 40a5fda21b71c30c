import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { sampleBlocks, type SampleBlock } from '../../test/helpers/markdown-blocks.ts'
import { operatorSamples, type Samples } from './operator-recipes.ts'
import { demoSamples, serverSamples } from './server-recipes.ts'

/**
 * Every recipe's output, by name. The three groups share nothing (each has its own directory, fakes and
 * ports), so they run side by side.
 */
export async function runSampleRecipes(): Promise<Samples> {
  const groups = await Promise.all([operatorSamples(), demoSamples(), serverSamples()])
  return new Map(groups.flatMap((group) => [...group]))
}

/** The documents that may hold sample blocks: README.md and docs/*.md, relative to the package root. */
export function sampleDocuments(): Array<{ file: string; text: string; blocks: SampleBlock[] }> {
  const root = packageRoot()
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
  return files.map((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    return { file, text, blocks: sampleBlocks(text) }
  })
}
