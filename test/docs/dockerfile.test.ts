import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseListen } from '../../src/config/parse-values.ts'
import { DEFAULTS } from '../../src/config/settings.ts'
import { createLogger } from '../../src/log/logger.ts'
import { packageRoot } from '../../src/package-root.ts'
import { createApp } from '../../src/server.ts'

/**
 * No Docker engine runs in CI, so the Dockerfile's promises are checked statically against the code:
 * stages and base image, production dependencies only, non-root user, the database on the /data volume,
 * the exposed port and health check matching the defaults, and SIGTERM reaching node directly.
 */
const ROOT = packageRoot()

interface Instruction { keyword: string; args: string }

function parseDockerfile(text: string): Instruction[][] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const stages: Instruction[][] = []
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? []
    const instruction = { keyword: keyword.toUpperCase(), args }
    if (instruction.keyword === 'FROM') stages.push([])
    stages.at(-1)?.push(instruction)
  }
  return stages
}

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
const runtime = stages.at(-1) ?? []
const build = stages.slice(0, -1)
const all = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args)
const one = (stage: Instruction[], keyword: string) => {
  const found = all(stage, keyword)
  expect(found, `exactly one ${keyword} in the runtime stage`).toHaveLength(1)
  return found[0] ?? ''
}
const defaultPort = parseListen(DEFAULTS.listen)?.port

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, both on node:20-bookworm-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    for (const stage of stages) expect(stage[0]?.args).toMatch(/^node:20-bookworm-slim(\s+AS\s+\S+)?$/i)
  })

  it('compiles TypeScript and better-sqlite3 in the build stage, and ships production dependencies only', () => {
    const buildRuns = build.flatMap((s) => all(s, 'RUN')).join('\n')
    expect(buildRuns).toMatch(/npm ci\b/)
    expect(buildRuns).toMatch(/python3/) // node-gyp's toolchain for the native SQLite module
    expect(buildRuns).toMatch(/npm (prune|ci)\b[^\n]*--omit=dev/)
    const copies = all(runtime, 'COPY')
    expect(copies.some((c) => /--from=\S+\s+\/app\/node_modules\b/.test(c))).toBe(true)
    // The runtime never installs anything itself, so dev dependencies cannot sneak in there.
    expect(all(runtime, 'RUN').join('\n')).not.toMatch(/npm (ci|install)/)
    expect(copies.some((c) => /\/app\/dist\/src\b/.test(c))).toBe(true)
    expect(copies.some((c) => /\/app\/migrations\b/.test(c))).toBe(true)
  })

  it('runs as the non-root node user with the default database on the /data volume', () => {
    expect(one(runtime, 'USER')).toBe('node')
    const volume = one(runtime, 'VOLUME')
    expect(volume).toMatch(/"\/data"|^\/data$/)
    expect(all(runtime, 'ENV').join(' ')).toMatch(/PRHERALD_DATABASE_URL=file:\/data\/[\w.-]+\.db\b/)
    expect(all(runtime, 'RUN').join('\n')).toMatch(/chown[^\n]*node:node[^\n]*\/data/)
  })

  it('exposes the default listen port and health-checks the route the server registers, on that port', async () => {
    expect(one(runtime, 'EXPOSE')).toBe(String(defaultPort))
    const healthcheck = one(runtime, 'HEALTHCHECK')
    const url = /https?:\/\/(?:127\.0\.0\.1|localhost):(\d+)(\/[\w/-]*)/.exec(healthcheck)
    expect(url?.[1]).toBe(String(defaultPort))
    const path = url?.[2] ?? ''
    // The checked path must be one the app answers 200 on, with no secrets or mappings involved.
    const app = createApp({
      provider: 'github', webhookSecrets: ['x'], logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
      accept: () => { throw new Error('the health check must not reach intake') },
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
