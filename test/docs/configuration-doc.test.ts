import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Context, Struct } from 'superstruct'
import { readConfigDocument } from '../../src/config/load-config.ts'
import { HOSTS } from '../../src/hosts/registry.ts'
import { configSchema } from '../../src/config/schema.ts'
import { DEFAULTS } from '../../src/config/settings.ts'
import { packageRoot } from '../../src/package-root.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** docs/configuration.md must name every key the schema accepts and every variable the code reads. */
const ROOT = packageRoot()
const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')

/** How the doc writes the free-form keys of each map (`record`) in the schema. */
const RECORD_KEYS: Record<string, string> = {
  mappings: '<owner>',
  'mappings.<owner>': '<repo>',
  'mappings.<owner>.<repo>.paths': '<prefix>',
  'mappings.<owner>.<repo>.owners': '<code owner>',
  users: '<login>',
  teams: '<slug>',
}

const probeContext: Context = { branch: [], path: [] }

/**
 * Every leaf key path of a superstruct schema. Objects expose their fields as `.schema`; a record's value
 * struct is only reachable through `entries`, so it is probed with a one-key map.
 */
function keyPaths(struct: Struct<unknown, unknown>, path: string[] = []): string[] {
  const here = path.join('.')
  // A host's block holds the top-level mappings, users and teams, whose rows document its keys: one row for it.
  if (path.length === 2 && path[0] === 'hosts') return ['hosts.<id>']
  if (struct.type === 'object') {
    const fields = struct.schema as Record<string, Struct<unknown, unknown>>
    return Object.entries(fields).flatMap(([key, field]) => keyPaths(field, [...path, key]))
  }
  if (struct.type === 'record') {
    const placeholder = RECORD_KEYS[here]
    if (!placeholder) throw new Error(`config key ${here} is a map: name its keys in RECORD_KEYS and in docs/configuration.md`)
    const entries = [...struct.entries({ [placeholder]: null }, probeContext)]
    const value = entries[1]?.[2] as Struct<unknown, unknown> | undefined
    if (!value) throw new Error(`cannot read the value type of ${here}`)
    return keyPaths(value, [...path, placeholder])
  }
  return [here]
}

/** Variables the product uses (docs names.md), plus whatever src/ reads from the environment. */
const NAMED_VARIABLES = [
  'SLACK_BOT_TOKEN', 'GITHUB_WEBHOOK_SECRET', 'GITHUB_TOKEN', 'BITBUCKET_WEBHOOK_SECRET', 'BITBUCKET_TOKEN',
  'BITBUCKET_AUTH_EMAIL', 'PRHERALD_CONFIG_FILE', 'PRHERALD_PUBLIC_URL', 'PRHERALD_DATABASE_URL', 'PRHERALD_LISTEN',
  'GITHUB_API_URL', 'BITBUCKET_API_URL', 'SLACK_API_URL',
]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

function variablesReadBySource(): string[] {
  const names = new Set<string>([...HOSTS.values()].flatMap((h) => [h.variables.secret, h.variables.token, h.variables.apiUrl, ...h.variables.extra]))
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)) names.add(match[1] ?? '')
  }
  return [...names].sort()
}

/** The reference table row of a key: the line that starts with its backticked name. */
const rowOf = (key: string) => doc.split('\n').find((line) => line.startsWith(`| \`${key}\` |`))

describe('docs/configuration.md', () => {
  const keys = keyPaths(configSchema as Struct<unknown, unknown>)

  it('finds the keys the loader knows (sanity check of the schema walk)', () => {
    expect(keys).toEqual(expect.arrayContaining([
      'git_provider', 'server.listen', 'slack.reactions.bot',
      'mappings.<owner>.<repo>.channel', 'mappings.<owner>.<repo>.paths.<prefix>.mentions', 'hosts.<id>',
    ]))
  })

  it.each([...new Set(keys)].map((k) => [k]))('has a reference row for %s', (key) => {
    expect(rowOf(key), `a table row starting with | \`${key}\` |`).toBeDefined()
  })

  it.each([
    ['server.listen', DEFAULTS.listen],
    ['server.log_format', DEFAULTS.logFormat],
    ['server.log_level', DEFAULTS.logLevel],
    ['server.shutdown_timeout_seconds', String(DEFAULTS.shutdownTimeoutSeconds)],
    ['database.url', DEFAULTS.databaseUrl],
    ['cleanup.message_ttl_days', String(DEFAULTS.messageTtlDays)],
    ...Object.entries(DEFAULTS.reactions).map(([key, emoji]) => [`slack.reactions.${key}`, emoji]),
  ])('gives the default of %s as %s', (key, value) => {
    expect(rowOf(key)).toContain(`\`${value}\``)
  })

  it.each([...new Set([...NAMED_VARIABLES, ...variablesReadBySource()])].map((v) => [v]))('documents the variable %s', (name) => {
    expect(doc.split('\n').some((line) => line.startsWith(`| \`${name}\` |`)), `a table row for ${name}`).toBe(true)
  })
})

describe('the examples in docs/configuration.md', () => {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => { dir = makeTempDir() })
  afterEach(() => dir.remove())

  /** Fenced YAML blocks whose first line is `# config.yaml…`: complete files, so they must load. */
  const examples = [...doc.matchAll(/```yaml\n(# config\.yaml[^\n]*\n[\s\S]*?)```/g)].map((m) => m[1] ?? '')
  const load = (text: string) => {
    const file = join(dir.path, 'config.yaml')
    writeFileSync(file, text)
    return readConfigDocument(file)
  }

  it('contains complete examples', () => expect(examples.length).toBeGreaterThanOrEqual(3))

  it.each(examples.map((e, i) => [i + 1, e]))('example %i is a valid configuration', (_, text) => {
    expect(() => load(text)).not.toThrow()
  })

  it('routes the worked inheritance example exactly as its table says', () => {
    // The block marked "worked example" is followed by a table: | `owner/repo` | channel | mentions |.
    const match = /```yaml\n(# config\.yaml \(worked example\)\n[\s\S]*?)```\n+([\s\S]*?)\n\n/.exec(doc)
    expect(match, 'a block starting with "# config.yaml (worked example)" followed by its table').not.toBeNull()
    const config = load(match?.[1] ?? '')
    const rows = (match?.[2] ?? '').split('\n').filter((l) => /^\| `[^`]+\/[^`]+` \|/.test(l))
    expect(rows.length).toBeGreaterThanOrEqual(4)
    for (const row of rows) {
      const cells = row.split('|').slice(1, -1).map((c) => c.trim())
      const [owner = '', repo = ''] = (cells[0] ?? '').replaceAll('`', '').split('/')
      const route = resolveRoute(config.mappings ?? {}, owner, repo)
      const channel = /`([CGD][A-Z0-9]+)`/.exec(cells[1] ?? '')?.[1]
      expect(route?.targets.map((t) => t.channel) ?? [], row).toEqual(channel ? [channel] : [])
      if (route) expect(route.targets[0]?.mentions, row).toEqual([...(cells[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]))
    }
  })
})
