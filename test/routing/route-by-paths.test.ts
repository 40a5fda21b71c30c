import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChangedFile } from '../../src/hosts/list-changed-files.ts'
import type { MessageTarget } from '../../src/routing/message-targets.ts'
import { NO_FILTER } from '../../src/routing/pull-request-filter.ts'
import type { PathRoute, Route } from '../../src/routing/resolve-route.ts'
import { matchRule, normalizePrefix } from '../../src/routing/route-by-paths.ts'
import { routePullRequest } from '../../src/routing/route-pull-request.ts'

/** Path rules through the one routing decision: the channels it picks from the changed files. */
function routeByPaths(changed: readonly ChangedFile[], route: Pick<Route, 'targets' | 'paths'>): MessageTarget[] {
  const full: Route = {
    owner: 'acme', repo: 'api', source: 'repository', reactions: undefined, threadUpdates: undefined, talkBack: [], digest: {},
    ignore: NO_FILTER, only: NO_FILTER, owners: [], ...route,
  }
  const pr = { title: 't', author: 'alice' }
  return routePullRequest({ route: full, follow: [] }, { owner: 'acme', repo: 'api', pr, files: { value: changed } }).targets.map(({ channel, mentions }) => ({ channel, mentions }))
}

const REPO_TARGET = { channel: 'C0REPO', mentions: ['<!here>'] }
const REPO = { targets: [REPO_TARGET] }
const rule = (prefix: string, channel: string, mentions: string[] = []): PathRoute => ({ prefix, channel, mentions })
const files = (...paths: string[]): ChangedFile[] => paths.map((path) => ({ path }))

describe('matchRule', () => {
  const rules = [rule('services/', 'C0SVC'), rule('services/billing/', 'C0BILL'), rule('services/billing/ledger', 'C0LEDGER')]

  it('picks the longest matching prefix, whatever the order the rules are written in', () => {
    expect(matchRule('services/billing/ledger/post.ts', rules)?.channel).toBe('C0LEDGER')
    expect(matchRule('services/billing/api.ts', rules)?.channel).toBe('C0BILL')
    expect(matchRule('services/auth/login.ts', rules)?.channel).toBe('C0SVC')
    expect(matchRule('services/billing/api.ts', [...rules].reverse())?.channel).toBe('C0BILL')
  })

  it('matches on directory boundaries only', () => {
    const billing = [rule('services/billing/', 'C0BILL')]
    expect(matchRule('services/billing-v2/api.ts', billing)).toBeUndefined()
    expect(matchRule('services/billingx', billing)).toBeUndefined()
    expect(matchRule('other/services/billing/api.ts', billing)).toBeUndefined()
  })

  it('treats a prefix with or without trailing slash (or a leading ./) as the same directory', () => {
    for (const prefix of ['services/billing', 'services/billing/', './services/billing//']) {
      expect(matchRule('services/billing/api.ts', [rule(prefix, 'C0BILL')])?.channel).toBe('C0BILL')
      expect(matchRule('services/billing-v2/api.ts', [rule(prefix, 'C0BILL')])).toBeUndefined()
    }
    expect(normalizePrefix('./a/b/')).toBe('a/b')
  })

  it('lets a rule name one file', () => {
    expect(matchRule('package.json', [rule('package.json', 'C0DEPS')])?.channel).toBe('C0DEPS')
    expect(matchRule('package.json.bak', [rule('package.json', 'C0DEPS')])).toBeUndefined()
  })

  it('is case-sensitive, as git paths are', () => {
    expect(matchRule('Services/billing/api.ts', [rule('services/billing', 'C0BILL')])).toBeUndefined()
  })

  it('of two rules for the same directory, the first written wins', () => {
    expect(matchRule('a/b/c.ts', [rule('a/b', 'C0FIRST'), rule('a/b/', 'C0SECOND')])?.channel).toBe('C0FIRST')
  })
})

describe('routeByPaths', () => {
  const route = {
    ...REPO,
    paths: [
      rule('services/billing/', 'C0BILL', ['<@U0BILL>', '<!subteam^S0PAY>']),
      rule('services/auth', 'C0AUTH', ['<@U0AUTH>']),
      rule('services/billing/ledger/', 'C0BILL', ['<@U0LEDGER>', '<@U0BILL>']),
      rule('web/', 'C0WEB'),
    ],
  }

  it('posts once per channel a rule claimed, in the order the rules are written; unmatched files add nothing', () => {
    const targets = routeByPaths(files('services/auth/login.ts', 'README.md', 'services/billing/api.ts'), route)
    expect(targets).toEqual([
      { channel: 'C0BILL', mentions: ['<@U0BILL>', '<!subteam^S0PAY>'] },
      { channel: 'C0AUTH', mentions: ['<@U0AUTH>'] },
    ])
  })

  it('merges the mentions of rules sharing a channel, without duplicates and without the repository mentions', () => {
    const targets = routeByPaths(files('services/billing/ledger/post.ts', 'services/billing/api.ts'), route)
    expect(targets).toEqual([{ channel: 'C0BILL', mentions: ['<@U0BILL>', '<!subteam^S0PAY>', '<@U0LEDGER>'] }])
  })

  it('only the rules that matched contribute mentions', () => {
    expect(routeByPaths(files('services/billing/ledger/post.ts'), route)).toEqual([
      { channel: 'C0BILL', mentions: ['<@U0LEDGER>', '<@U0BILL>'] },
    ])
  })

  it('falls back to the repository channel and mentions when no file matches, or there are no files', () => {
    expect(routeByPaths(files('README.md', 'services/billing-v2/x.ts'), route)).toEqual([REPO_TARGET])
    expect(routeByPaths([], route)).toEqual([REPO_TARGET])
  })

  it('with several repository channels: a match replaces all of them, no match falls back to all of them', () => {
    const several = { ...route, targets: [REPO_TARGET, { channel: 'C0OPS', mentions: [] }] }
    expect(routeByPaths(files('services/auth/a.ts'), several)).toEqual([{ channel: 'C0AUTH', mentions: ['<@U0AUTH>'] }])
    expect(routeByPaths(files('README.md'), several)).toEqual(several.targets)
  })

  it('counts a renamed file under its old and its new path', () => {
    const moved: ChangedFile[] = [{ path: 'web/billing/page.tsx', previousPath: 'services/billing/page.tsx' }]
    expect(routeByPaths(moved, route).map((t) => t.channel)).toEqual(['C0BILL', 'C0WEB'])
    const intoRepoRoot: ChangedFile[] = [{ path: 'docs/auth.md', previousPath: 'services/auth/README.md' }]
    expect(routeByPaths(intoRepoRoot, route).map((t) => t.channel)).toEqual(['C0AUTH'])
  })

  it('gives the same answer for any order of the changed files', () => {
    const paths = ['services/auth/a.ts', 'services/billing/b.ts', 'web/c.tsx', 'README.md', 'services/billing/ledger/d.ts', 'lib/e.ts']
    const expected = routeByPaths(files(...paths), route)
    fc.assert(fc.property(fc.shuffledSubarray(paths, { minLength: paths.length, maxLength: paths.length }), (shuffled) => {
      expect(routeByPaths(files(...shuffled), route)).toEqual(expected)
    }))
  })

  it('never returns a channel twice nor an empty list', () => {
    const paths = ['services/auth/a.ts', 'services/billing/b.ts', 'web/c.tsx', 'README.md', 'services/billing/ledger/d.ts']
    fc.assert(fc.property(fc.subarray(paths), (subset) => {
      const channels = routeByPaths(files(...subset), route).map((t) => t.channel)
      expect(channels.length).toBeGreaterThan(0)
      expect(new Set(channels).size).toBe(channels.length)
    }))
  })
})
