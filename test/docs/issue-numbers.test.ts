import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../src/package-root.ts'
import { issueReferences } from '../helpers/issue-references.ts'

/**
 * The docs speak to users, who do not have prherald's issues: no page names an issue number. A page says what a
 * feature does instead. The CLIs' --help is checked in cli-help.test.ts with the same rule.
 */
const ROOT = packageRoot()

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

describe('issue numbers in README.md and docs/', () => {
  it.each(pages)('%s names none', (page) => {
    expect(issueReferences(readFileSync(join(ROOT, page), 'utf8'))).toEqual([])
  })

  it('finds the references it is meant to refuse, and leaves pull requests and other repositories alone', () => {
    const text = [
      '# Talk back from Slack (issue 33)',
      'Before issues 21-25 the burst (issue-31) grew; see (#12) and #924.',
      'PR #12: Add rate limiting; PRs #803, #835; nodejs/node#65446; github:acme/api#42; [a](#a-heading)',
    ].join('\n')
    expect(issueReferences(text).map((r) => r.split(' in ')[0])).toEqual([
      'line 1: issue 33', 'line 2: issues 21', 'line 2: issue-31', 'line 2: #12', 'line 2: #924',
    ])
  })
})
