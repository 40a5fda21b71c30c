import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  classifyDependencyBump, dependencyBotLogins, securityUpdate, type BumpText,
} from '../../machines/dependency-bump.ts'
import { decodeBitbucket } from '../../src/hosts/bitbucket/decode.ts'
import { decodeGithub } from '../../src/hosts/github/decode.ts'
import { github } from '../../src/hosts/github/index.ts'
import { bitbucket } from '../../src/hosts/bitbucket/index.ts'
import { isIgnored, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import { packageRoot } from '../../src/package-root.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/** PR bodies in the formats Dependabot (dependabot-core's message builder) and Renovate write them. */
const body = (name: string) => readFileSync(join(packageRoot(), 'test/fixtures/dependency-bumps', `${name}.md`), 'utf8')
const text = (facts: Partial<BumpText>): BumpText => ({ title: 'Bump a dependency', labels: ['dependencies'], body: undefined, ...facts })

describe('securityUpdate', () => {
  it.each([
    ['Dependabot, routine (its release notes quote a CVE id outside the vulnerabilities section)', 'dependabot-routine', 'Bump express from 4.18.2 to 4.19.0'],
    ['Renovate, routine (its release notes quote a GHSA id outside the alerts section)', 'renovate-routine', 'Update dependency vitest to v2.1.5'],
    ['Dependabot, a vulnerabilities section without any advisory id', 'dependabot-vulnerabilities-without-id', 'Bump left-pad from 1.2.0 to 1.3.0'],
  ])('%s is routine', (_, fixture, title) => {
    expect(securityUpdate(text({ title, body: body(fixture) }))).toBe(false)
  })

  it.each([
    ['Dependabot, a GHSA id in "Vulnerabilities fixed"', 'dependabot-security-ghsa', 'Bump commons-compress from 1.20 to 1.21'],
    ['Dependabot, a CVE id in "Vulnerabilities fixed"', 'dependabot-security-cve', 'Bump plist from 3.0.2 to 3.0.4'],
    ['Renovate, its "GitHub Vulnerability Alerts" section', 'renovate-security', 'Update dependency vite to v5.4.6'],
  ])('%s is a security update', (_, fixture, title) => {
    expect(securityUpdate(text({ title, body: body(fixture) }))).toBe(true)
  })

  it("Renovate's [SECURITY] title marker counts, as its default suffix or as a prefix; elsewhere in the title it does not", () => {
    expect(securityUpdate(text({ title: 'Update dependency vite to v5.4.6 [SECURITY]' }))).toBe(true)
    expect(securityUpdate(text({ title: '[SECURITY] Update dependency vite to v5.4.6' }))).toBe(true)
    expect(securityUpdate(text({ title: 'Update dependency [SECURITY]-scanner to v2' }))).toBe(false)
  })

  it('a `security` label counts, in any case; other labels do not', () => {
    expect(securityUpdate(text({ labels: ['dependencies', 'Security'] }))).toBe(true)
    expect(securityUpdate(text({ labels: ['dependencies', 'security-review-done'] }))).toBe(false)
  })

  it('fails safe: no body, an empty body or unparseable text is routine', () => {
    expect(securityUpdate(text({}))).toBe(false)
    expect(securityUpdate(text({ body: '' }))).toBe(false)
    expect(securityUpdate(text({ body: '<summary>Vulnerabilities fixed' }))).toBe(false)
    expect(securityUpdate(text({ body: '### GitHub Vulnerability Alerts\n\nnothing listed' }))).toBe(false)
    expect(securityUpdate(text({ body: 'CVE-2024-45811 mentioned in passing' }))).toBe(false)
  })
})

describe('dependency bots', () => {
  it('GitHub knows dependabot[bot] and renovate[bot]; the configured logins extend the list; Bitbucket has only the configured ones', () => {
    expect(dependencyBotLogins(github.dependencyBots, [])).toEqual(['dependabot[bot]', 'renovate[bot]'])
    expect(dependencyBotLogins(github.dependencyBots, ['Acme-Renovate[bot]'])).toEqual(['dependabot[bot]', 'renovate[bot]', 'acme-renovate[bot]'])
    expect(dependencyBotLogins(bitbucket.dependencyBots, [])).toEqual([])
    expect(dependencyBotLogins(bitbucket.dependencyBots, ['renovate-bot'])).toEqual(['renovate-bot'])
  })

  const reviews = { dependencyBots: 'compact' as const, dependencyBotLogins: [] }
  it('matches the login exactly and case-insensitively, never by a prefix or a look-alike', () => {
    const onGithub = (author: string) => classifyDependencyBump({ pr: { author } }, reviews, github.dependencyBots)
    expect(onGithub('Dependabot[bot]')).toEqual({ bot: 'Dependabot[bot]', security: false, compact: true })
    expect(onGithub('dependabot')).toBeUndefined()
    expect(onGithub('dependabot[bot]-fork')).toBeUndefined()
    expect(classifyDependencyBump({ pr: { author: 'renovate[bot]' } }, reviews, bitbucket.dependencyBots)).toBeUndefined()
  })

  it('carries the security verdict and the layout', () => {
    const bump = classifyDependencyBump({ pr: { author: 'renovate[bot]', securityUpdate: true } }, { ...reviews, dependencyBots: 'standard' }, github.dependencyBots)
    expect(bump).toEqual({ bot: 'renovate[bot]', security: true, compact: false })
  })
})

describe('the decoders keep the verdict, never the body', () => {
  const decodedGithub = (facts: { labels?: string[]; body?: string; title?: string }): PullRequestEvent => {
    const payload = pullRequest('opened', 5, { title: facts.title, author: 'dependabot[bot]', labels: facts.labels, body: facts.body })
    const decoded = decodeGithub('pull_request', 'd-1', payload)
    if (isIgnored(decoded)) throw new Error(`ignored: ${decoded.reason}`)
    return decoded
  }

  it('GitHub: a security body sets securityUpdate; a routine one leaves the event as it was', () => {
    const security = decodedGithub({ body: body('dependabot-security-ghsa') })
    expect(security.pr.securityUpdate).toBe(true)
    expect(JSON.stringify(security)).not.toContain('Vulnerabilities fixed')
    expect('securityUpdate' in decodedGithub({ body: body('dependabot-routine') }).pr).toBe(false)
    expect(decodedGithub({ labels: ['security'] }).pr.securityUpdate).toBe(true)
  })

  it('Bitbucket: the description is read like a body', () => {
    const payload = bitbucketPayload('pullrequest:created', { id: 3, title: 'Update dependency vite to v5.4.6', description: body('renovate-security') })
    const decoded = decodeBitbucket('pullrequest:created', 'd-2', payload)
    if (isIgnored(decoded)) throw new Error(`ignored: ${decoded.reason}`)
    expect(decoded.pr.securityUpdate).toBe(true)
    expect(JSON.stringify(decoded)).not.toContain('Vulnerability Alerts')
  })
})
