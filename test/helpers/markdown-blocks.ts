import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/**
 * The fenced shell blocks of a document that a test runs, so that editing a step in the docs changes what is
 * tested. The convention: a block's info string is `sh` followed by `<marker>=<name>[,<name>…]`, e.g.
 *
 *     ```sh quick-start=github,bitbucket
 *     prherald-server
 *     ```
 *
 * GitHub (and most renderers) take the info string's first word as the language and ignore the rest, so the
 * block still renders as highlighted shell. A block may serve several names; the blocks of one name are
 * returned in document order.
 */
export function markedShellBlocks(file: string, marker: string, name: string): string[] {
  const text = readFileSync(join(packageRoot(), file), 'utf8')
  const fence = /^```sh[ \t]+([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm
  const blocks: string[] = []
  for (const [, info = '', body = ''] of text.matchAll(fence)) {
    const names = info.split(/\s+/).find((word) => word.startsWith(`${marker}=`))?.slice(marker.length + 1).split(',')
    if (names?.includes(name)) blocks.push(body)
  }
  return blocks
}

/**
 * Replaces each placeholder (a literal string in the docs, like `xoxb-…`) with the test's value, and throws
 * when one does not occur at all: a table entry that no longer matches the docs would otherwise silently
 * stop standing in for what it was meant to.
 */
export function substitute(script: string, table: ReadonlyArray<readonly [placeholder: string, value: string]>): string {
  return table.reduce((text, [placeholder, value]) => {
    if (!text.includes(placeholder)) throw new Error(`the placeholder ${JSON.stringify(placeholder)} is not in the documented commands:\n${text}`)
    return text.replaceAll(placeholder, value)
  }, script)
}

/** A generated sample-output block: its recipe's name and its body (the text between the fences). */
export interface SampleBlock {
  name: string
  body: string
}

/**
 * The sample-output blocks of a document: a fenced block right after an HTML comment naming its recipe,
 *
 *     <!-- sample: doctor-empty -->
 *     ```
 *     $ prherald-doctor
 *     …
 *     ```
 *
 * `npm run docs:samples` rewrites their bodies with what the commands print; the comment does not render.
 */
const SAMPLE_BLOCK = /^<!-- sample: ([a-z0-9-]+) -->\n(```[^\n]*\n)([\s\S]*?)^```[ \t]*$/gm

export function sampleBlocks(text: string): SampleBlock[] {
  return [...text.matchAll(SAMPLE_BLOCK)].map(([, name = '', , body = '']) => ({ name, body }))
}

/** `text` with each sample block's body replaced by its recipe's output (which ends with a newline). */
export function withSampleBlocks(text: string, outputs: ReadonlyMap<string, string>): string {
  return text.replace(SAMPLE_BLOCK, (block, name: string, open: string) => {
    const output = outputs.get(name)
    return output === undefined ? block : `<!-- sample: ${name} -->\n${open}${output}\`\`\``
  })
}

/**
 * The first line of each fenced block without a language (what a command prints, in this project's docs)
 * that is neither a sample block nor marked `<!-- hand-written sample: <why> -->`: output typed by hand
 * without saying why it cannot be generated.
 */
export function unmarkedOutputBlocks(text: string): string[] {
  return [...text.matchAll(/^```([^\n]*)\n([^\n]*)[\s\S]*?^```[ \t]*$/gm)]
    .filter(([, info = '']) => info.trim() === '')
    .filter((m) => !/^<!-- (sample: |hand-written sample: )/.test(text.slice(0, m.index).split('\n').at(-2) ?? ''))
    .map(([, , first = '']) => first)
}
