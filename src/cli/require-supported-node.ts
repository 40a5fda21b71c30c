import { fileURLToPath } from 'node:url'
import { projectNode } from './project-node.ts'
import { relayToNode } from './relay-to-node.ts'

/**
 * Imported first by every entry point (the prherald-* commands, the healthcheck, the scripts npm runs), so
 * that nothing else loads on a Node.js line prherald does not support: better-sqlite3's Node-API binary needs
 * Node 22 and segfaults on Node 20, long after start-up. There the command runs itself again on the Node
 * `npm ci` installed (a linked command started by an older `node` on PATH), and stops with one line where
 * there is none. The commands' entries import only this file and then their body, dynamically, so that the
 * body is not loaded on the old Node while the new one runs (a top-level await does not hold back sibling imports).
 * The lines are package.json's engines; test/docs/runtime-support.test.ts keeps the two and the docs equal.
 */
export const SUPPORTED_NODE_LINES = [
  { major: 22, minimum: '22.13.0' },
  { major: 24, minimum: '24.0.0' },
  { major: 26, minimum: '26.0.0' },
] as const

/** "Node.js 22 (from 22.13), 24 or 26": the words the docs use too. */
export function supportedNodeText(): string {
  const lines = SUPPORTED_NODE_LINES.map(({ major, minimum }) => {
    const [, minor, patch] = minimum.split('.')
    return minor === '0' && patch === '0' ? String(major) : `${major} (from ${minimum.replace(/\.0$/, '')})`
  })
  return `Node.js ${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`
}

/** Why this Node.js version cannot run prherald, or undefined when it can. */
export function unsupportedNodeReason(version: string): string | undefined {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number)
  const line = SUPPORTED_NODE_LINES.find((l) => l.major === major)
  const [, fromMinor = 0, fromPatch = 0] = line?.minimum.split('.').map(Number) ?? []
  if (line && (minor > fromMinor || (minor === fromMinor && patch >= fromPatch))) return undefined
  return (
    `needs ${supportedNodeText()}; this is Node.js ${version} ` +
    '(fix: run `npm ci` in the prherald clone, which installs Node.js 26 there, or install one of those lines)'
  )
}

const reason = unsupportedNodeReason(process.versions.node)
if (reason) {
  const node = projectNode(fileURLToPath(import.meta.url), (version) => unsupportedNodeReason(version) === undefined)
  if (!node) {
    process.stderr.write(`prherald: ${reason}\n`)
    process.exit(1)
  }
  await relayToNode(node)
}
