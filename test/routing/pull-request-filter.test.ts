import { describe, expect, it } from 'vitest'
import { compileTitleGlob, matchesTitleGlob, titleGlobProblem } from '../../src/config/title-glob.ts'
import { filterMatch, gateMatch, NO_FILTER, NO_GATE, onlyMiss } from '../../src/routing/pull-request-filter.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'

const glob = (pattern: string, title: string) => matchesTitleGlob(compileTitleGlob(pattern), title)
const pr = (over: Record<string, unknown> = {}) => ({ pr: { title: 'Add search', url: '', author: 'octocat', draft: false, state: 'open' as const, createdAt: '', updatedAt: '', ...over } })

describe('title globs', () => {
  it('match the whole title, without regard to case, with * and ?', () => {
    expect(glob('WIP*', 'wip: add search')).toBe(true)
    expect(glob('WIP*', 'Add WIP search')).toBe(false)
    expect(glob('*[skip slack]*', 'Bump deps [skip slack] now')).toBe(true)
    expect(glob('v?.0', 'V2.0')).toBe(true)
    expect(glob('v?.0', 'v12.0')).toBe(false)
    expect(glob('*', '')).toBe(true)
    expect(glob('a', '')).toBe(false)
  })

  it('answer a title built to make a backtracking matcher explode', () => {
    // A backtracking matcher needs on the order of n^12 steps here and would not return within the test's
    // timeout; the state-set walk takes a few million. How long it takes is measured by npm run bench:responsiveness.
    const title = 'a'.repeat(200_000)
    expect(glob('*a*a*a*a*a*a*a*a*a*a*a*a*b', title)).toBe(false)
    expect(glob('*a*a*a*a*a*a*a*a*a*a*a*a*', title)).toBe(true)
  })

  it('refuse empty and over-long patterns with the fix', () => {
    expect(titleGlobProblem('  ')).toMatch(/empty pattern/)
    expect(titleGlobProblem('x'.repeat(201))).toMatch(/keep it to 200/)
    expect(titleGlobProblem('WIP*')).toBeUndefined()
  })
})

describe('filterMatch', () => {
  const filter = { ...NO_FILTER, labels: ['WIP'], title: ['Draft:*'], authors: ['Renovate[bot]', '557058:abc'] }
  it('names what matched: a label, the author (login or account id) or the title', () => {
    expect(filterMatch(filter, pr({ labels: ['bug', 'wip'] }))).toBe('label')
    expect(filterMatch(filter, pr({ author: 'renovate[bot]' }))).toBe('author')
    expect(filterMatch(filter, pr({ author: 'Renovate Bot', authorAccountId: '557058:ABC' }))).toBe('author')
    expect(filterMatch(filter, pr({ title: 'draft: add search' }))).toBe('title')
    expect(filterMatch(filter, pr())).toBeUndefined()
    expect(filterMatch(NO_FILTER, pr({ labels: ['wip'] }))).toBeUndefined()
    // A GitLab comment carries no labels: held back only where labels are ignored.
    expect(filterMatch(filter, pr({ labelsUnknown: true }))).toBe('labels_unknown')
    expect(filterMatch({ ...filter, labels: [] }, pr({ labelsUnknown: true }))).toBeUndefined()
  })
})

describe('ignore inheritance', () => {
  it('takes each key from the repository entry, else from the owner\'s "*"', () => {
    const mappings = { acme: {
      '*': { channel: 'C0000000001', ignore: { labels: ['wip'], title: 'WIP*' } },
      api: { ignore: { title: ['Draft*', 'tmp*'] } },
    } }
    expect(resolveRoute(mappings, 'acme', 'api')?.ignore).toEqual({ ...NO_FILTER, labels: ['wip'], title: ['Draft*', 'tmp*'] })
    expect(resolveRoute(mappings, 'acme', 'web')?.ignore).toEqual({ ...NO_FILTER, labels: ['wip'], title: ['WIP*'] })
  })

  it('inherits only the same way, key by key', () => {
    const mappings = { acme: {
      '*': { channel: 'C0000000001', only: { into: ['main', 'release/*'] }, ignore: { from: ['dependabot/*'] } },
      api: { only: { labels: ['backend'] } },
    } }
    expect(resolveRoute(mappings, 'acme', 'api')?.only).toEqual({ ...NO_FILTER, into: ['main', 'release/*'], labels: ['backend'] })
    expect(resolveRoute(mappings, 'acme', 'api')?.ignore).toEqual({ ...NO_FILTER, from: ['dependabot/*'] })
  })
})

describe('only and branches', () => {
  const gate = { only: { ...NO_FILTER, into: ['main', 'release/*'] }, ignore: { ...NO_FILTER, from: ['dependabot/*', 'renovate/*'] } }
  it('lets through what matches every key of only and no key of ignore', () => {
    expect(gateMatch(gate, pr({ into: 'main', from: 'feature/search' }))).toBeUndefined()
    expect(gateMatch(gate, pr({ into: 'release/2.4', from: 'fix' }))).toBeUndefined()
    expect(gateMatch(gate, pr({ into: 'feature/x', from: 'fix' }))).toBe('not_into')
    expect(gateMatch(gate, pr({ into: 'main', from: 'dependabot/npm/lodash' }))).toBe('from')
    // A delivery without its branches (GitHub's issue_comment) is held back, like one without labels.
    expect(gateMatch(gate, pr({}))).toBe('branch_unknown')
    expect(onlyMiss({ ...NO_FILTER, labels: ['backend'] }, pr({ labels: ['web'] }))).toBe('not_labels')
    expect(onlyMiss({ ...NO_FILTER, labels: ['backend'] }, pr({ labels: ['Backend'] }))).toBeUndefined()
    expect(onlyMiss({ ...NO_FILTER, authors: ['alice'] }, pr())).toBe('not_authors')
    expect(gateMatch(NO_GATE, pr())).toBeUndefined()
  })
})

describe('prherald-config list', () => {
  it('prints each entry\'s filters after inheritance, and nothing without filters', async () => {
    const { formatFilters } = await import('../../src/cli/format-filters.ts')
    const { listRoutes } = await import('../../src/routing/resolve-route.ts')
    const routes = listRoutes({ acme: { '*': { channel: 'C0000000001', ignore: { labels: ['wip'] } }, api: { ignore: { title: 'WIP*' } } } })
    expect(formatFilters(routes)).toEqual(['ignore (pull requests not announced):', '  acme/*: labels wip', '  acme/api: labels wip; title "WIP*"'])
    expect(formatFilters(listRoutes({ acme: { '*': { channel: 'C0000000001' } } }))).toEqual([])
  })
})
