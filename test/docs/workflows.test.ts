import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { packageRoot } from '../../src/package-root.ts'

/**
 * Every file in .github/workflows passes the workflow schema, checked offline by action-validator (its
 * schema ships inside the package as WebAssembly), and the CI workflow keeps the promises that
 * docs/operations.md#published-images makes about images and tags.
 */
const ROOT = packageRoot()
const DIR = join(ROOT, '.github/workflows')
const VALIDATOR = join(ROOT, 'node_modules/@action-validator/cli/cli.mjs')
const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f))

interface Step { uses?: string; run?: string; with?: Record<string, unknown> }
interface Job { if?: string; needs?: string | string[]; permissions?: Record<string, string>; steps: Step[]; strategy?: { matrix?: { node?: number[] } } }
const ci = parse(readFileSync(join(DIR, 'ci.yml'), 'utf8')) as { on: Record<string, unknown>; jobs: Record<string, Job> }
const step = (job: Job, action: string) => job.steps.find((s) => s.uses?.split('@')[0] === action)

describe('.github/workflows', () => {
  it('has workflow files', () => {
    expect(files).toContain('ci.yml')
  })

  it.each(files)('%s passes the GitHub Actions workflow schema', (file) => {
    const result = spawnSync(process.execPath, [VALIDATOR, join(DIR, file)], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  it('the validator rejects a workflow that breaks the schema (so a pass means something)', () => {
    const broken = join(ROOT, 'test/fixtures/invalid-workflow.yml')
    const result = spawnSync(process.execPath, [VALIDATOR, broken], { encoding: 'utf8' })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("Additional property 'stepz' is not allowed")
  })

  it.each(files)('%s pins every action to a version', (file) => {
    const uses = [...readFileSync(join(DIR, file), 'utf8').matchAll(/uses:\s*(\S+)/g)].map((m) => m[1] ?? '')
    for (const action of uses) expect(action, action).toMatch(/^(\.\/|[\w.-]+\/[\w.-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$)/)
  })
})

describe('ci.yml', () => {
  const { test, image } = ci.jobs as { test: Job; image: Job }

  it('tests on every push and pull request', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push'])
    expect(test.if).toBeUndefined()
    // The suite runs on the matrix's Node: set up last, and starting vitest itself (npm test would run on the
    // Node 26 that npm ci brings into node_modules/.bin).
    expect(test.steps.map((s) => s.run).filter(Boolean).slice(-3)).toEqual(['npm ci', 'npm run typecheck', 'node --version && node node_modules/vitest/vitest.mjs run'])
    const setups = test.steps.filter((s) => s.uses?.split('@')[0] === 'actions/setup-node')
    expect(setups.at(-1)?.with?.['node-version']).toBe('${{ matrix.node }}')
  })

  it('builds images only after the tests, on a version tag or a pull request from this repository', () => {
    expect(image.needs).toBe('test')
    expect((ci.on.push as { tags: string[] }).tags).toEqual(['v*.*.*'])
    expect(image.if).toContain("startsWith(github.ref, 'refs/tags/v')")
    // A fork's pull request gets a read-only token: the job must not even try.
    expect(image.if).toContain('github.event.pull_request.head.repo.full_name == github.repository')
    expect(image.permissions).toEqual({ contents: 'read', packages: 'write' })
  })

  it('pushes a multi-arch image with provenance to ghcr.io, with semver and pr-<number> tags', () => {
    for (const action of ['docker/setup-qemu-action', 'docker/setup-buildx-action', 'docker/login-action', 'docker/metadata-action', 'docker/build-push-action']) {
      expect(step(image, action), action).toBeDefined()
    }
    expect(step(image, 'docker/login-action')?.with?.registry).toBe('ghcr.io')
    const tags = String(step(image, 'docker/metadata-action')?.with?.tags)
    expect(tags).toContain('type=semver,pattern={{version}}')
    expect(tags).toContain('type=semver,pattern={{major}}.{{minor}}')
    expect(tags).toContain('type=ref,event=pr') // metadata-action names it pr-<number>
    const build = step(image, 'docker/build-push-action')?.with ?? {}
    expect(build.platforms).toBe('linux/amd64,linux/arm64')
    expect(build.push).toBe(true)
    expect(String(build.provenance)).toMatch(/^(true|mode=(min|max))$/)
  })

  it('docs/operations.md names the registry and every tag the workflow makes', () => {
    const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')
    expect(doc).toContain('ghcr.io/')
    for (const tag of ['`1.2.3`', '`1.2`', '`1`', '`latest`', '`pr-<number>`']) expect(doc).toContain(tag)
  })
})
