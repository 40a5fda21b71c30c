/**
 * A CODEOWNERS file, parsed and matched as the git hosts document it (docs/routing.md). Pure.
 *
 * GitHub ("About code owners"): "A CODEOWNERS file uses a pattern that follows most of the same rules used in
 * gitignore files", except "Escaping a pattern starting with # using \ …", "Using ! to negate a pattern",
 * "Using [ ] to define a character range"; "the last matching pattern takes the most precedence"; "If any
 * line in your CODEOWNERS file contains invalid syntax, the file will not be detected"; "CODEOWNERS paths are
 * case sensitive". Inline comments: its example writes `*.js @js-owner #This is an inline comment.`
 * GitLab ("Syntax of CODEOWNERS file"): sections `[Section name]`, optional `^[Section name]`, approvals
 * `[Section name][5]`, default owners after the heading; "Sections names are not case-sensitive. Sections
 * with duplicate names are combined"; "sections are named areas that are analyzed separately"; `\#` escapes
 * a leading pound sign, `path\ with\ spaces/`; "Inline comments are unsupported. Any Code Owners listed in a
 * comment are parsed"; `!path` excludes (17.10 and later).
 * Bitbucket Cloud ("Set up and use code owners"): `.bitbucket/CODEOWNERS`, ".gitignore-like syntax" with the
 * same three exceptions as GitHub; "Comments begin with a # and can be at the start of line or inline".
 */

import type { CodeOwnersSyntax } from '../hosts/contract.ts'

export type { CodeOwnersSyntax }

export interface CodeOwnersRule {
  line: number
  pattern: string
  /** Lower-cased, as CODEOWNERS writes them (`@acme/web`, `jane@example.com`); empty: unowned. */
  owners: string[]
  negated: boolean
  regex: RegExp
}

export interface CodeOwnersSection {
  /** '' for the rules before any heading (GitLab) and for every rule elsewhere. */
  name: string
  rules: CodeOwnersRule[]
}

export interface CodeOwnersFile {
  /** Where the host found it (`.github/CODEOWNERS`). */
  path: string
  sections: CodeOwnersSection[]
  /** Lines the host would refuse or read otherwise: the file is then not used at all, as on GitHub. */
  problems: Array<{ line: number; text: string; reason: string }>
}

const escapeRegex = (text: string) => text.replace(/[.+^${}()|\\]/g, '\\$&')

/** One pattern's segments into a regular expression over a path without a leading slash. */
function compilePattern(raw: string): RegExp {
  let pattern = raw
  const dirOnly = pattern.endsWith('/')
  if (dirOnly) pattern = pattern.replace(/\/+$/, '')
  // gitignore: "If there is a separator at the beginning or middle … the pattern is relative to the root".
  const anchored = pattern.includes('/')
  pattern = pattern.replace(/^\/+/, '')
  const segments = pattern.split('/')
  let body = ''
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1
    if (segment === '**') {
      // `a/**/b`: zero or more directories; a trailing `/**`: everything inside.
      body += last ? '.*' : '(?:.*/)?'
      return
    }
    body += segment.split('').map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : escapeRegex(c))).join('')
    if (!last) body += '/'
  })
  const start = anchored ? '^' : '^(?:.*/)?'
  // `docs/*` owns docs/getting-started.md "but not further nested files" (GitHub, and GitLab's `/docs/*`);
  // any other pattern that names a directory owns what is inside it.
  const lastSegment = segments.at(-1)
  const end = dirOnly ? '/.*$' : lastSegment === '*' || lastSegment === '**' ? '$' : '(?:/.*)?$'
  return new RegExp(start + body + end)
}

/** A heading: `[Name]`, `^[Name]`, `[Name][2]`, then default owners. */
const HEADING = /^\^?\[([^\]]+)\](?:\[\d+\])?(?:\s+(.*))?$/

/** Splits on unescaped whitespace; `\ ` is a space inside the pattern. */
function tokens(line: string): string[] {
  const out: string[] = []
  let current = ''
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === '\\' && i + 1 < line.length) {
      current += c + line[++i]
      continue
    }
    if (c === ' ' || c === '\t') {
      if (current !== '') out.push(current)
      current = ''
      continue
    }
    current += c
  }
  if (current !== '') out.push(current)
  return out
}

const isOwner = (token: string) => /^@\S+$/.test(token) || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(token)

export function parseCodeOwners(text: string, path: string, syntax: CodeOwnersSyntax): CodeOwnersFile {
  const sections: CodeOwnersSection[] = [{ name: '', rules: [] }]
  const problems: CodeOwnersFile['problems'] = []
  let section = sections[0]!
  let defaults: string[] = []
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = index + 1
    const trimmed = rawLine.trim()
    if (trimmed === '' || trimmed.startsWith('#')) return
    const heading = syntax.sections ? HEADING.exec(trimmed) : null
    if (heading) {
      const name = heading[1]!.trim()
      const existing = sections.find((s) => s.name.toLowerCase() === name.toLowerCase() && s.name !== '')
      section = existing ?? { name, rules: [] }
      if (!existing) sections.push(section)
      defaults = tokens(heading[2] ?? '').filter(isOwner).map((o) => o.toLowerCase())
      return
    }
    let [rawPattern = '', ...rest] = tokens(trimmed)
    if (syntax.inlineComments) {
      const comment = rest.findIndex((t) => t.startsWith('#'))
      if (comment >= 0) rest = rest.slice(0, comment)
    }
    let negated = false
    if (rawPattern.startsWith('!')) {
      if (!syntax.negation) return void problems.push({ line, text: trimmed, reason: 'a pattern starting with ! (negation) is not supported by this host' })
      negated = true
      rawPattern = rawPattern.slice(1)
    }
    if (rawPattern.startsWith('\\#') && !syntax.escapedHash) {
      return void problems.push({ line, text: trimmed, reason: 'an escaped # is not supported by this host' })
    }
    if (/(^|[^\\])\[/.test(rawPattern)) return void problems.push({ line, text: trimmed, reason: 'character ranges ([ ]) are not supported in CODEOWNERS' })
    const pattern = rawPattern.replace(/\\(.)/g, '$1')
    const named = rest.filter(isOwner).map((o) => o.toLowerCase())
    const owners = named.length > 0 ? named : defaults
    section.rules.push({ line, pattern, owners, negated, regex: compilePattern(pattern) })
  })
  return { path, sections: sections.filter((s) => s.rules.length > 0), problems }
}

/**
 * The owners of one file: in each section the last rule that matches it (a negated one, or one without
 * owners, leaves it unowned there), all sections together. Paths are compared with their case.
 */
export function ownersOf(file: CodeOwnersFile, path: string): string[] {
  const owners = new Set<string>()
  for (const section of file.sections) {
    const rule = section.rules.findLast((r) => r.regex.test(path))
    if (rule && !rule.negated) for (const owner of rule.owners) owners.add(owner)
  }
  return [...owners]
}
