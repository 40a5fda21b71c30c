import { describe, expect, it } from 'vitest'
import { listRoutes, resolveRoute } from '../../src/routing/resolve-route.ts'
import { formatRoutes } from '../../src/cli/format-routes.ts'
import { configFile } from '../helpers/config-file.ts'

/** `assign:` in a mapping entry: refused with every problem at once, each with its line; inherited key by key from `"*"`. */
const { load, refusal } = configFile()



describe('assign:', () => {
  it('refuses a count below 1 and an unknown strategy, both at once with their lines', () => {
    const message = refusal(`git_provider: github
teams:
  backend: S0BACKEND1
mappings:
  acme:
    api:
      channel: C0API00001
      assign: { team: frontend }
    web:
      channel: C0WEB00001
      assign: { team: backend, count: 0 }
    ops:
      channel: C0OPS00001
      assign: { team: backend, strategy: random }
`)
    expect(message).toContain('line 11, mappings.acme.web.assign.count: 0 is not allowed; ask from 1 to 10 reviewers')
    expect(message).toMatch(/line 14, mappings\.acme\.ops\.assign\.strategy: "random" is not allowed; use one of .*round_robin.*least_busy/)
  })

  it('refuses a team not in teams:, naming the fix, once the file\'s shape is right', () => {
    const message = refusal(`git_provider: github
teams:
  backend: S0BACKEND1
mappings:
  acme:
    api:
      channel: C0API00001
      assign: { team: frontend }
    web:
      channel: C0WEB00001
      assign: { team: mobile }
`)
    expect(message).toContain('line 8, mappings.acme.api.assign.team: "frontend" is not in teams; add it there with its Slack user group')
    expect(message).toContain('line 11, mappings.acme.web.assign.team: "mobile" is not in teams')
  })

  it('is inherited from the owner\'s "*" key by key, with defaults', () => {
    const settings = load(`git_provider: bitbucket
teams:
  backend: S0BACKEND1
mappings:
  acme:
    "*":
      channel: C0API00001
      assign: { team: backend, strategy: least_busy }
    api:
      assign: { team: backend, count: 2, skip_away: false }
    web: {}
`)
    const mappings = settings.hosts[0]!.mappings
    expect(resolveRoute(mappings, 'acme', 'api')?.assign).toEqual({ team: 'backend', count: 2, strategy: 'least_busy', skipAway: false })
    expect(resolveRoute(mappings, 'acme', 'web')?.assign).toEqual({ team: 'backend', count: 1, strategy: 'least_busy', skipAway: true })
    // prherald-config list shows what each entry ends up with.
    const listed = formatRoutes(listRoutes(mappings), settings.reactions)
    expect(listed[0]).toMatch(/REACTIONS\s+ASSIGN$/)
    expect(listed.find((row) => /^acme +api /.test(row))).toMatch(/backend x2 least_busy$/)
    expect(listed.find((row) => /^acme +web /.test(row))).toMatch(/backend x1 least_busy skip_away$/)
  })
})
