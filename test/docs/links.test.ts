import { describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'

/** Relative links in README.md and docs/ point at files that exist, and their #anchors at real headings. */
const ROOT = packageRoot()

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

/**
 * GitHub's heading anchors: lower case, punctuation dropped (except - and _), spaces to hyphens; and the
 * `<a id="…"></a>` a page keeps so that links to a renamed heading still resolve.
 */
function anchors(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '')
  const headings = [...withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
    (m[1] ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'))
  const kept = [...withoutCode.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] ?? '')
  return new Set([...headings, ...kept])
}

function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((l) => !/^[a-z]+:/i.test(l))
}

const cases = pages.flatMap((page) => links(readFileSync(join(ROOT, page), 'utf8')).map((link) => [page, link] as const))

describe('links in README.md and docs/', () => {
  it('finds links to check', () => expect(cases.length).toBeGreaterThan(20))

  it.each(cases)('%s → %s resolves', (page, link) => {
    const [path = '', anchor] = link.split('#')
    const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path)
    const name = relative(ROOT, file)
    expect(existsSync(file), `${name} exists`).toBe(true)
    if (anchor && file.endsWith('.md')) expect([...anchors(readFileSync(file, 'utf8'))]).toContain(anchor)
  })
})
