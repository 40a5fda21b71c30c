import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { parse } from 'yaml'
import { PROVIDERS } from '../../src/config/schema.ts'
import { HTTP_TIMEOUTS } from '../../src/http/http-timeouts.ts'
import { SLACK_PATHS } from '../../src/http/slack-route.ts'
import { packageRoot } from '../../src/package-root.ts'
import { handleFor, matcherPaths, parseCaddyfile, walk, type CaddyDirective } from '../helpers/caddyfile.ts'

/**
 * The Caddyfile compose.yaml runs in front of prherald, read statically (no Caddy runs in the tests): the
 * routes the git hosts and Slack post to reach prherald, nothing else does (/metrics above all), and the
 * proxy's settings fit prherald's HTTP server.
 */
const ROOT = packageRoot()
const TEXT = readFileSync(join(ROOT, 'Caddyfile'), 'utf8')
const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, string> }>
}
// The OAuth routes people's browsers follow when they link an account (talk-back, docs/talk-back.md).
const OAUTH_ROUTES = PROVIDERS.flatMap((p) => [`/oauth/${p}/start`, `/oauth/${p}/callback`])
const PUBLIC_ROUTES = [...PROVIDERS.map((p) => `/webhook/${p}`), ...Object.values(SLACK_PATHS), ...OAUTH_ROUTES]
const INTERNAL_ROUTES = ['/metrics', '/healthz', '/readyz', '/', '/webhook', '/oauth']

const siteOf = (text: string) => {
  const sites = parseCaddyfile(text)
  expect(sites.map((s) => s.name)).toEqual(['{$PRHERALD_DOMAIN}'])
  return sites[0]!
}
const proxiesIn = (block: CaddyDirective[]) => walk(block).map((w) => w.directive).filter((d) => d.name === 'reverse_proxy')
const site = siteOf(TEXT)
const proxy = proxiesIn(site.block)[0]
const setting = (name: string) => walk(proxy?.block ?? []).find((w) => w.directive.name === name)?.directive.args
const milliseconds = (duration: string) => {
  const [, n = 'NaN', unit = ''] = /^(\d+)(ms|s|m)$/.exec(duration) ?? []
  return Number(n) * ({ ms: 1, s: 1_000, m: 60_000 }[unit] ?? Number.NaN)
}

describe('Caddyfile', () => {
  it('serves one site, the host name in PRHERALD_DOMAIN, with exactly one reverse_proxy', () => {
    expect(site.name).toBe('{$PRHERALD_DOMAIN}')
    expect(proxiesIn(site.block)).toHaveLength(1)
  })

  it.each(PUBLIC_ROUTES)('forwards %s (a route the app answers) to prherald', (path) => {
    const handle = handleFor(site, path)
    expect(matcherPaths(site, handle!)).toEqual(['/webhook/*', '/oauth/*'])
    expect(proxiesIn(handle?.block ?? []).map((p) => p.args)).toEqual([['prherald:8080']])
  })

  it.each(INTERNAL_ROUTES)('answers %s itself with 404, never reaching prherald', (path) => {
    const handle = handleFor(site, path)
    expect(proxiesIn(handle?.block ?? [])).toEqual([])
    expect(handle?.block.map((d) => [d.name, ...d.args])).toEqual([['respond', '404']])
  })

  it('the route check catches a Caddyfile that would forward /metrics (so a pass means something)', () => {
    const leaky = siteOf(TEXT.replace(/\trespond 404/, '\treverse_proxy prherald:8080'))
    expect(proxiesIn(handleFor(leaky, '/metrics')?.block ?? [])).toHaveLength(1)
    const metricsFirst = siteOf(TEXT.replace('path /webhook/* /oauth/*', 'path /*'))
    expect(proxiesIn(handleFor(metricsFirst, '/metrics')?.block ?? [])).toHaveLength(1)
  })

  it('proxies to the name and port every prherald service answers on in compose.yaml', () => {
    const [host, port] = (proxy?.args[0] ?? '').split(':')
    expect(compose.services[host ?? '']?.environment?.PRHERALD_LISTEN).toBe(`:${port}`)
    const replicas = compose.services['prherald-replicas'] as { networks?: { default?: { aliases?: string[] } }; environment?: Record<string, string> }
    expect(replicas.networks?.default?.aliases).toContain(host)
    expect(replicas.environment?.PRHERALD_LISTEN).toBe(`:${port}`)
  })

  it('closes idle connections to prherald before prherald does (a POST on a closing one is a 502)', () => {
    const [keepalive = ''] = setting('keepalive') ?? []
    expect(milliseconds(keepalive)).toBeLessThan(HTTP_TIMEOUTS.keepAliveMs)
  })

  it('retries a refused connection within the git hosts\' 10 s, on a Caddy whose retries keep the POST body', () => {
    const [tryDuration = ''] = setting('lb_try_duration') ?? []
    expect(milliseconds(tryDuration)).toBeLessThan(HTTP_TIMEOUTS.requestMs)
    // Before 2.11.2 that retry of a POST failed with a 502, its body closed (caddyserver/caddy#7546).
    const version = /^caddy:(\d+\.\d+\.\d+)/.exec(compose.services.caddy?.image ?? '')?.[1] ?? '0.0.0'
    expect(semver.gte(version, '2.11.2'), `caddy ${version}`).toBe(true)
  })
})
