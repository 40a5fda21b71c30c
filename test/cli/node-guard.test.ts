import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { supportedNodeText, unsupportedNodeReason } from '../../src/cli/require-supported-node.ts'
import { packageRoot } from '../../src/package-root.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { unsupportedNode as installedUnsupportedNode } from '../helpers/unsupported-node.ts'

/**
 * Every entry point started by an unsupported Node line runs itself on the Node `npm ci` installed, and where
 * there is none refuses with one line, instead of loading better-sqlite3 (whose Node-API binary segfaults on
 * Node 20). The entries are read from package.json (its bins and the `node dist/…` files its scripts run) plus
 * the image's healthcheck, so a new one is covered. The same on whichever line runs the tests; the commands
 * started by that line itself are test/cli/supported-node-start.test.ts.
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
const unsupportedNode = installedUnsupportedNode()
const broughtVersion = Object.entries(manifest.optionalDependencies).find(([name]) => name.startsWith('node-'))?.[1]

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

  it(`every entry point started by Node 20 (${unsupportedNode}) runs on the Node npm ci installed`, () => {
    const version = spawnSync(unsupportedNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
    expect(unsupportedNodeReason(version), `${unsupportedNode} is Node ${version}, which prherald supports`).toBeDefined()
    expect(entries.length).toBeGreaterThanOrEqual(12)
    for (const file of bins) {
      const result = run(unsupportedNode, file)
      expect({ file, status: result.status, stderr: result.stderr }).toEqual({ file, status: 0, stderr: '' })
      expect(result.stdout).toContain(`node-v${broughtVersion}`)
    }
  })

  it('every entry point imports the guard first; a command imports nothing else before its body but Node built-ins', () => {
    for (const file of entries) {
      const imports = [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^import (?:.* from )?["'](.+?)["']/gm)].map((m) => m[1])
      expect({ file, first: imports[0] }).toEqual({ file, first: expect.stringMatching(/\/require-supported-node\.js$/) })
      if (bins.includes(file)) expect({ file, imports }).toEqual({ file, imports: [imports[0], ...(file.endsWith('/server.js') ? ['../memory/malloc-arenas.js'] : [])] })
    }
  })

  it('where npm ci installed no supported Node, every command on Node 20 exits 1 with one line naming the supported lines', () => {
    // The guard and an entry as they are built, in a package whose node_modules holds no Node: nothing to run on.
    const dir = makeTempDir()
    try {
      mkdirSync(join(dir.path, 'dist/src/cli'), { recursive: true })
      writeFileSync(join(dir.path, 'package.json'), JSON.stringify({ name: 'prherald', type: 'module', optionalDependencies: manifest.optionalDependencies }))
      mkdirSync(join(dir.path, 'dist/src/memory'))
      for (const file of ['cli/require-supported-node.js', 'cli/project-node.js', 'cli/relay-to-node.js', 'cli/relay-signals.js', 'memory/malloc-arenas.js']) {
        copyFileSync(join(ROOT, 'dist/src', file), join(dir.path, 'dist/src', file))
      }
      const version = spawnSync(unsupportedNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
      for (const file of bins) {
        copyFileSync(join(ROOT, file), join(dir.path, file))
        const result = spawnSync(unsupportedNode, [join(dir.path, file), '--version'], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } })
        expect({ file, status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
          file,
          status: 1,
          stdout: '',
          stderr: `prherald: ${unsupportedNodeReason(version)}\n`,
        })
      }
      expect(unsupportedNodeReason(version)).toContain(`needs ${supportedNodeText()};`)
    } finally {
      dir.remove()
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
