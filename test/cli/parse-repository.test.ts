import { describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { parseRepository } from '../../src/config/parse-repository.ts'

describe('parseRepository', () => {
  it.each([
    ['acme/api', 'acme', 'api'],
    ['acme/*', 'acme', '*'],
    // A nested group: everything before the last slash is the owner.
    ['platform/backend/api', 'platform/backend', 'api'],
    ['a/b/c/d', 'a/b/c', 'd'],
  ])('reads %s', (arg, owner, repo) => {
    expect(parseRepository(arg)).toEqual({ owner, repo })
  })

  it.each(['api', 'acme/', '/api', 'acme//api', 'acme/api/', 'acme /api'])('refuses %j with the form to write', (arg) => {
    let caught: unknown
    try {
      parseRepository(arg)
    } catch (error) {
      caught = error
    }
    expect(isPrheraldError(caught, 'usage')).toBe(true)
    // Each host's own form, GitLab's nested groups too.
    const { fix } = caught as { fix?: string }
    expect(fix).toContain('GitHub: owner/repo')
    expect(fix).toContain('Bitbucket: workspace/repository-slug')
    expect(fix).toContain('GitLab: group/project (nested: group/subgroup/project)')
  })
})
