import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import type { Samples } from '../../scripts/samples/operator-recipes.ts'
import { runSampleRecipes, sampleDocuments } from '../../scripts/samples/sample-recipes.ts'
import { unmarkedOutputBlocks } from '../helpers/markdown-blocks.ts'

// The sample output in the docs is what the built commands print (dist/: `npm test` builds first).
const FIX = 'the commands print something else now: run `npm run docs:samples` and review the diff'
const documents = sampleDocuments()

describe('sample output in the docs', () => {
  let outputs: Samples
  beforeAll(async () => { outputs = await runSampleRecipes() }, 90_000)

  for (const { file, blocks } of documents.filter((d) => d.blocks.length > 0)) {
    it(`${file}: every sample block is what its command prints now`, () => {
      for (const { name, body } of blocks) {
        expect(outputs.has(name), `${file}: <!-- sample: ${name} --> names no recipe (scripts/samples/)`).toBe(true)
        expect(body, `${file}, sample ${name}: ${FIX}`).toBe(outputs.get(name))
      }
    })
  }

  it('every recipe is shown in a document', () => {
    const shown = new Set(documents.flatMap((d) => d.blocks.map((b) => b.name)))
    expect([...outputs.keys()].filter((name) => !shown.has(name))).toEqual([])
  })
})

describe('output blocks are generated, or say why not', () => {
  for (const file of ['README.md', 'docs/getting-started.md', 'docs/operators.md', 'docs/operations.md']) {
    it(`${file}: each block of output is a sample block or marked hand-written with its reason`, () => {
      const text = documents.find((d) => d.file === file)!.text
      expect(unmarkedOutputBlocks(text), 'precede it with <!-- sample: <recipe> --> or <!-- hand-written sample: <why> -->').toEqual([])
    })
  }
})

describe('command lists follow package.json', () => {
  const { bin } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { bin: Record<string, string> }
  const section = (file: string, heading: string) => {
    const text = readFileSync(join(packageRoot(), file), 'utf8')
    const start = text.indexOf(`\n${heading}\n`)
    return text.slice(start, text.indexOf('\n## ', start + 1))
  }

  it('operations.md "Commands" names every bin, and no count that could go stale', () => {
    const commands = section('docs/operations.md', '## Commands')
    expect(Object.keys(bin).filter((name) => !commands.includes(`\`${name}`))).toEqual([])
    expect(commands).not.toMatch(/\b(two|three|four|five|six|seven|eight|nine|ten) commands\b/)
  })
})
