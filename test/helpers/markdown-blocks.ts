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
