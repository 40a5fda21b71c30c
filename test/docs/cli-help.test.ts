import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HOSTS } from '../../src/hosts/registry.ts'
import { packageRoot } from '../../src/package-root.ts'
import { issueReferences } from '../helpers/issue-references.ts'
import { runCli } from '../helpers/spawn-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Every command, option and environment variable a CLI's `--help` lists is documented: commands and
 * options in the CLI's reference page, variables in docs/configuration.md. Runs the built bins (dist/).
 * To cover another CLI, add one line to CLIS.
 */
const ROOT = packageRoot()
type CliName = Parameters<typeof runCli>[0]

const CLIS: Array<{ name: CliName; doc: string }> = [
  { name: 'server', doc: 'docs/operations.md' },
  { name: 'migrate', doc: 'docs/operations.md' },
  { name: 'config', doc: 'docs/operators.md' },
  { name: 'doctor', doc: 'docs/operators.md' },
  { name: 'setup', doc: 'docs/operators.md' },
  { name: 'smoke', doc: 'docs/operators.md' },
  { name: 'reconcile', doc: 'docs/reconcile.md' },
  { name: 'digest', doc: 'docs/digest.md' },
]

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** `--help` runs in an empty directory with no variables, so a CLI that ignored the flag could not start anything. */
function help(name: CliName, args: string[] = []) {
  const dir = makeTempDir()
  try {
    const result = runCli(name, [...args, '--help'], {}, dir.path)
    if (result.status !== 0) throw new Error(`prherald-${name} ${args.join(' ')} --help exited ${result.status}:\n${result.stderr}`)
    return result.stdout
  } finally {
    dir.remove()
  }
}

function section(text: string, title: string): string[] {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.trim() === `${title}:`)
  if (start < 0) return []
  const end = lines.findIndex((l, i) => i > start && l.trim() === '')
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

const commandsOf = (text: string) => section(text, 'Commands').map((l) => l.trim().split(/\s+/)[0] ?? '').filter(Boolean)
const optionsOf = (text: string) => section(text, 'Options')
  .flatMap((l) => [...l.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1] ?? ''))
  .filter((o) => o !== '--help')
const variablesOf = (text: string) => [...section(text, 'Environment').join('\n').matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)].map((m) => m[0])

describe.each(CLIS)('prherald-$name --help', ({ name, doc }) => {
  const top = help(name)
  const commands = commandsOf(top)
  const pages = [{ args: [] as string[], text: top }, ...commands.map((c) => ({ args: [c], text: help(name, [c]) }))]

  it('names the bin and its version', () => {
    expect(top.split('\n')[0]).toMatch(new RegExp(`^prherald-${name}/\\d+\\.\\d+\\.\\d+`))
  })

  it.each(commands.map((c) => [c]))(`documents the command %s in ${doc}`, (command) => {
    expect(read(doc)).toContain(`prherald-${name} ${command}`)
  })

  it('keeps its Environment section in two columns: a name too long for the first has a line of its own', () => {
    for (const page of pages) {
      for (const line of section(page.text, 'Environment')) {
        if (/^ {2}[A-Z]/.test(line) && line.trim().includes(' ')) expect(line, `prherald-${name} ${page.args.join(' ')}`).toMatch(/^ {2}\S.{0,21} {2,}\S|^ {2}[A-Z0-9_]+, [A-Z0-9_]+ +\S|^ {2}PGUSER, PGPASSWORD/)
      }
    }
  })

  it('names no issue number (people who read --help do not have prherald\'s issues)', () => {
    for (const page of pages) expect(issueReferences(page.text), `prherald-${name} ${page.args.join(' ')} --help`).toEqual([])
  })

  it(`documents every option in ${doc}`, () => {
    const text = read(doc)
    for (const page of pages) {
      for (const option of optionsOf(page.text)) expect(text, `${option} of prherald-${name} ${page.args.join(' ')}`).toContain(option)
    }
  })

  it('lists only variables that docs/configuration.md documents', () => {
    const configuration = read('docs/configuration.md')
    const variables = new Set(pages.flatMap((p) => variablesOf(p.text)))
    expect(variables.size).toBeGreaterThan(0)
    // A row names one variable, or a pair read together (`| \`A_ID\`, \`A_SECRET\` |`).
    for (const variable of variables) expect(configuration).toMatch(new RegExp(`^\\| (\`[A-Z0-9_]+\`, )?\`${variable}\`(, \`[A-Z0-9_]+\`)? \\|`, 'm'))
  })

  it('names a git host variable of one host only beside the same variable of every other host', () => {
    const variables = new Set(pages.flatMap((p) => variablesOf(p.text)))
    for (const role of ['secret', 'token', 'apiUrl'] as const) {
      const named = [...HOSTS.values()].map((host) => host.variables[role])
      if (named.some((v) => variables.has(v))) expect(named.filter((v) => !variables.has(v)), `${role} variables missing`).toEqual([])
    }
  })

  it('says where a self-managed install\'s API is beside the API URL variable of a host that has one (GitHub Enterprise Server)', () => {
    const lines = pages.flatMap((p) => section(p.text, 'Environment'))
    for (const host of HOSTS.values()) {
      const line = lines.find((l) => l.trim().startsWith(`${host.variables.apiUrl} `))
      if (line === undefined || !host.selfManaged) continue
      expect(line).toContain(`${host.selfManaged.name}: ${host.selfManaged.apiUrl}`)
    }
    if (lines.some((l) => l.trim().startsWith('GITHUB_API_URL '))) expect(lines.join('\n')).toContain('GitHub Enterprise Server: https://HOST/api/v3')
  })
})
