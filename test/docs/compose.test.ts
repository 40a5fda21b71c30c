import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, posix } from 'node:path'
import { Ajv } from 'ajv'
import { parse } from 'yaml'
import { DEFAULTS } from '../../src/config/settings.ts'
import { packageRoot } from '../../src/package-root.ts'
import { argsOf, readDockerfile } from '../helpers/dockerfile.ts'

/**
 * compose.yaml, the one-step deployment (docs/operations.md#deploy-in-one-step). No Docker engine runs in
 * the tests, so the file is validated against the Compose specification's JSON schema (shipped in the
 * dclint package) and checked against what the image and prherald need.
 */
interface Service {
  image?: string
  build?: string
  profiles?: string[]
  env_file?: string | string[]
  environment?: Record<string, string>
  volumes?: string[]
  ports?: string[]
  healthcheck?: { test?: string[] }
  stop_grace_period?: string
  deploy?: { replicas?: number }
  depends_on?: Record<string, { condition?: string }>
}
interface Compose { services: Record<string, Service>; volumes?: Record<string, unknown> }

const ROOT = packageRoot()
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const compose = parse(read('compose.yaml'), { merge: true }) as Compose
const services = Object.entries(compose.services)
const SCHEMA = join(dirname(createRequire(import.meta.url).resolve('dclint/package.json')), 'schemas/compose.schema.json')
// A draft-07 schema (Ajv's default draft), named by an https URL that Ajv does not know as the meta-schema.
const { $schema: draft, ...schema } = JSON.parse(readFileSync(SCHEMA, 'utf8')) as { $schema: string }
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema)

const runtime = readDockerfile(ROOT).at(-1) ?? []
const imageDefault = /PRHERALD_DATABASE_URL=(\S+)/.exec(argsOf(runtime, 'ENV').join(' '))?.[1] ?? ''
const imageHealthcheck = JSON.parse(argsOf(runtime, 'HEALTHCHECK')[0]?.replace(/^.*?CMD\s+/, '') ?? '[]') as string[]
/** The services that run prherald: built from this repository's Dockerfile. */
const prheralds = services.filter(([, s]) => s.build === '.')
const inProfile = (profile: string) => prheralds.filter(([, s]) => s.profiles?.includes(profile))
const mountAt = (service: Service | undefined, target: string) => service?.volumes?.find((v) => v.split(':')[1] === target)?.split(':')[0]
const seconds = (duration = '') => Number(/^(\d+)s$/.exec(duration)?.[1] ?? Number.NaN)

describe('compose.yaml', () => {
  it('passes the Compose specification schema', () => {
    validate(compose)
    expect(validate.errors ?? []).toEqual([])
  })

  it('the schema check rejects a misspelt key and a wrong type (so a pass means something)', () => {
    const broken = structuredClone(compose)
    Object.assign(broken.services.prherald!, { healtcheck: { test: ['CMD', 'true'] }, ports: '8080:8080' })
    expect(validate(broken)).toBe(false)
    const messages = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
    expect(messages.join('\n')).toMatch(/\/services\/prherald must NOT have additional properties.*healtcheck/)
    expect(messages.join('\n')).toMatch(/\/services\/prherald\/ports must be array/)
  })

  it('sqlite profile: one server, its database file on a named volume at the image\'s data directory', () => {
    const [[name, sqlite] = []] = inProfile('sqlite')
    expect(name).toBe('prherald')
    expect(inProfile('sqlite')).toHaveLength(1)
    expect(sqlite?.deploy?.replicas ?? 1).toBe(1)
    const file = imageDefault.replace(/^file:/, '')
    const dataDir = posix.dirname(file)
    expect(argsOf(runtime, 'VOLUME').join(' ')).toContain(`"${dataDir}"`)
    expect(sqlite?.environment?.PRHERALD_DATABASE_URL ?? imageDefault).toBe(imageDefault)
    const volume = mountAt(sqlite, dataDir) ?? ''
    expect(Object.keys(compose.volumes ?? {})).toContain(volume) // named, so it keeps the image's node:node owner
  })

  it('postgres profile: PostgreSQL and two replicas that reach the same database it creates', () => {
    const postgres = compose.services.postgres
    expect(postgres?.profiles).toEqual(['postgres'])
    const replicas = inProfile('postgres')
    expect(replicas.reduce((n, [, s]) => n + (s.deploy?.replicas ?? 1), 0)).toBe(2)
    const urls = new Set(replicas.map(([, s]) => s.environment?.PRHERALD_DATABASE_URL))
    expect(urls.size).toBe(1)
    const url = new URL([...urls][0] ?? '')
    expect(url.protocol).toBe('postgres:')
    expect(url.password).toBe('') // the password comes from PGPASSWORD, set from the same .env line as PostgreSQL's
    expect(`${url.hostname}:${url.port}`).toBe('postgres:5432')
    expect(url.username).toBe(postgres?.environment?.POSTGRES_USER)
    expect(url.pathname).toBe(`/${postgres?.environment?.POSTGRES_DB}`)
    for (const [, replica] of replicas) {
      expect(replica.environment?.PGPASSWORD).toBe(postgres?.environment?.POSTGRES_PASSWORD)
      expect(replica.depends_on?.postgres?.condition).toBe('service_healthy')
    }
    expect(postgres?.healthcheck?.test?.[1]).toBe('pg_isready')
    // From PostgreSQL 18 the image keeps its data in /var/lib/postgresql/<major>/docker.
    const major = Number(/^postgres:(\d+)/.exec(postgres?.image ?? '')?.[1])
    expect(major).toBeGreaterThanOrEqual(18)
    expect(Object.keys(compose.volumes ?? {})).toContain(mountAt(postgres, '/var/lib/postgresql'))
  })

  it('the profiles are exclusive: every prherald service is in exactly one of sqlite and postgres', () => {
    expect(prheralds.length).toBeGreaterThan(1)
    for (const [name, s] of prheralds) expect([name, s.profiles]).toEqual([name, [expect.stringMatching(/^(sqlite|postgres)$/)]])
    const example = /^COMPOSE_PROFILES=(\S+)$/m.exec(read('.env.example'))?.[1]
    expect(example).toBe('sqlite')
  })

  it('every prherald: secrets from .env, the image\'s health check, config at /config, a drain-long stop', () => {
    for (const [, s] of prheralds) {
      expect(s.env_file).toBe('.env')
      expect(s.healthcheck?.test).toEqual(['CMD', ...imageHealthcheck])
      expect(mountAt(s, '/config')).toBe('./config')
      expect(seconds(s.stop_grace_period)).toBeGreaterThan(DEFAULTS.shutdownTimeoutSeconds)
      expect(s.ports).toBeUndefined() // reached through Caddy only
    }
  })

  it('Caddy is the only way in: ports 80 and 443, the Caddyfile, its certificates on a volume', () => {
    const caddy = compose.services.caddy
    expect(services.filter(([, s]) => s.ports).map(([name]) => name)).toEqual(['caddy'])
    expect(caddy?.ports).toEqual(['80:80', '443:443'])
    expect(mountAt(caddy, '/etc/caddy/Caddyfile')).toBe('./Caddyfile')
    expect(Object.keys(compose.volumes ?? {})).toContain(mountAt(caddy, '/data'))
    expect(caddy?.environment?.PRHERALD_DOMAIN).toMatch(/^\$\{PRHERALD_DOMAIN:\?/)
  })

  it('pins every image it pulls by digest, and writes no secret into the file', () => {
    for (const [name, s] of services.filter(([, s]) => !s.build)) expect(s.image, name).toMatch(/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/)
    for (const [name, s] of services) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (/TOKEN|SECRET|PASSWORD/.test(key)) expect(value, `${name}.${key}`).toMatch(/^\$\{[A-Z_]+(:-)?\}$/)
      }
    }
  })

  it('every variable compose.yaml and the Caddyfile use is in .env.example and in the Deploy in one step section', () => {
    const used = new Set([
      ...[...read('compose.yaml').matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]),
      ...[...read('Caddyfile').matchAll(/\{\$([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]),
      'COMPOSE_PROFILES',
    ])
    expect(used.size).toBeGreaterThan(3)
    const example = read('.env.example')
    const section = /^### Deploy in one step\n([\s\S]*?)(?=^##)/m.exec(read('docs/operations.md'))?.[1] ?? ''
    for (const name of used) {
      expect(example, `${name} in .env.example`).toMatch(new RegExp(`^#? ?${name}=`, 'm'))
      expect(section, `${name} in docs/operations.md#deploy-in-one-step`).toContain(`\`${name}\``)
    }
  })
})

describe('compose.socket-mode.yaml', () => {
  const socketMode = parse(read('compose.socket-mode.yaml'), { merge: true }) as Compose
  it('passes the Compose specification schema: one prherald on a SQLite volume, no proxy, published only where PRHERALD_BIND says', () => {
    validate(socketMode)
    expect(validate.errors ?? []).toEqual([])
    expect(Object.keys(socketMode.services)).toEqual(['prherald'])
    const prherald = socketMode.services.prherald
    expect(prherald?.environment?.PRHERALD_DATABASE_URL).toBe(imageDefault)
    expect(prherald?.ports).toEqual(['${PRHERALD_BIND:-127.0.0.1}:8080:8080'])
    expect(prherald?.environment?.PRHERALD_PUBLIC_URL).toBeUndefined()
  })
})
