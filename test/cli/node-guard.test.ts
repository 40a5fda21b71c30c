import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { supportedNodeText, unsupportedNodeReason } from '../../src/cli/require-supported-node.ts'
import { packageRoot } from '../../src/package-root.ts'

/**
 * Every entry point refuses an unsupported Node line at start, with one line, instead of loading
 * better-sqlite3 (whose Node-API binary segfaults on Node 20). The entries are read from package.json (its
 * bins and the `node dist/…` files its scripts run) plus the image's healthcheck, so a new one is covered.
 */
const ROOT = packageRoot()
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>
  scripts: Record<string, string>
  optionalDependencies: Record<string, string>
}
const bins = Object.values(manifest.bin)
const scripts = Object.values(manifest.scripts).flatMap((s) => [...s.matchAll(/\bnode (dist\/\S+\.js)/g)].map((m) => m[1]!))
const entries = [...new Set([...bins, ...scripts, 'dist/src/cli/healthcheck.js'])]
// This machine's and CI's system Node is 20; GitHub's workflow points this at the Node 20 setup-node installs.
const unsupportedNode = process.env.PRHERALD_UNSUPPORTED_NODE ?? '/usr/bin/node'

const run = (node: string, file: string) =>
  spawnSync(node, [join(ROOT, file), '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } })

describe('the Node line guard', () => {
  it('admits the supported lines from their minimum, and nothing else', () => {
    for (const version of ['22.13.0', '22.23.3', '24.0.0', '24.21.0', '26.0.0', '26.10.0']) {
      expect(unsupportedNodeReason(version), version).toBeUndefined()
    }
    for (const version of ['18.20.8', '20.20.2', '22.12.0', '23.11.0', '25.2.1', '27.0.0']) {
      expect(unsupportedNodeReason(version), version).toContain(`this is Node.js ${version}`)
    }
  })

  it(`every entry point on Node 20 (${unsupportedNode}) exits 1 with one line naming the supported lines`, () => {
    const version = spawnSync(unsupportedNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
    expect(unsupportedNodeReason(version), `${unsupportedNode} is Node ${version}, which prherald supports`).toBeDefined()
    expect(entries.length).toBeGreaterThanOrEqual(12)
    for (const file of entries) {
      const result = run(unsupportedNode, file)
      expect({ file, status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        file,
        status: 1,
        stdout: '',
        stderr: `prherald: ${unsupportedNodeReason(version)}\n`,
      })
    }
    expect(unsupportedNodeReason(version)).toContain(`needs ${supportedNodeText()};`)
  })

  it('every command starts on the Node running the tests, a supported line', () => {
    expect(unsupportedNodeReason(process.versions.node)).toBeUndefined()
    for (const file of bins) {
      const result = run(process.execPath, file)
      expect({ file, status: result.status, stderr: result.stderr }).toEqual({ file, status: 0, stderr: '' })
      expect(result.stdout).toContain(`node-v${process.versions.node}`)
    }
  })

  it('npm ci brings the Node package.json names, and it starts the commands', () => {
    const brought = join(ROOT, 'node_modules/.bin/node')
    const result = spawnSync(brought, [join(ROOT, 'dist/src/cli/config.js'), '--version'], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    const version = Object.entries(manifest.optionalDependencies).find(([name]) => name.startsWith('node-'))?.[1]
    expect(result.stdout).toContain(`node-v${version}`)
  })
})
