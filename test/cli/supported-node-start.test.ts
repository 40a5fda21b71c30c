import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unsupportedNodeReason } from '../../src/cli/require-supported-node.ts'
import { packageRoot } from '../../src/package-root.ts'

/**
 * Every command started by the Node that runs the tests (a supported line) runs on that Node itself, with no
 * relay. The one part of the Node line guard whose subject is the line the tests run on: .ci/run runs this
 * file again on Node 24; the rest of the guard (test/cli/node-guard.test.ts: Node 20, the brought Node, the
 * imports) does the same on every line and runs once.
 */
const ROOT = packageRoot()
const { bin } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }

describe('the commands on a supported Node line', () => {
  it('every command starts on the Node running the tests', () => {
    expect(unsupportedNodeReason(process.versions.node)).toBeUndefined()
    for (const file of Object.values(bin)) {
      const result = spawnSync(process.execPath, [join(ROOT, file), '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } })
      expect({ file, status: result.status, stderr: result.stderr }).toEqual({ file, status: 0, stderr: '' })
      expect(result.stdout).toContain(`node-v${process.versions.node}`)
    }
  })
})
