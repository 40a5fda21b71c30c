import type { ConnectedHost } from '../config/connect-hosts.ts'
import { isPrheraldError } from '../errors.ts'
import { parseCodeOwners, type CodeOwnersFile } from '../routing/code-owners.ts'
import { listRoutes, type Route } from '../routing/resolve-route.ts'
import type { CheckResult } from './check-result.ts'
import type { SlackCheckOptions } from './slack-api.ts'
import { slackChannelCheck } from './slack-channel-check.ts'

/** A team owner (`@org/team`, `@group/subgroup`): review requests name one only where the host has teams prherald reads. */
const isTeam = (owner: string) => owner.startsWith('@') && owner.includes('/')

/**
 * [routing] of one host (docs/routing.md): every `owners` and `follow` channel is one the bot can post in; the
 * CODEOWNERS of each repository entry with `owners` is readable at the default branch, in a syntax the host reads,
 * and names each owner `owners` lists (one it does not name is a WARN: its channel gets nothing from it); and what
 * the host cannot do with these keys. Nothing here stops the server (it starts, and such rules fall back to the
 * entry's own channels, logged), so the only FAIL is an `owners` channel the bot cannot post in, which the start-up's
 * check of each entry's channels refuses too.
 */
export async function routingResults(own: ConnectedHost, slack: SlackCheckOptions | undefined): Promise<CheckResult[]> {
  const routes = listRoutes(own.mappings).filter((r) => r.owners.length > 0)
  const follow = own.follow ?? []
  if (routes.length === 0 && follow.length === 0) return []
  const asked = new Map<string, Promise<CheckResult>>()
  const channel = async (target: string, id: string): Promise<CheckResult> => {
    if (!slack) return { name: 'slack-channel', target, status: 'SKIP', reason: `${id} not checked: SLACK_BOT_TOKEN is not set` }
    let pending = asked.get(id)
    if (!pending) asked.set(id, pending = slackChannelCheck(slack, target, id))
    return { ...(await pending), target }
  }
  const results: CheckResult[] = []
  for (const route of routes) {
    const entry = `${route.owner}/${route.repo}`
    for (const o of route.owners) results.push(await channel(`${entry} owners."${o.owner}"`, o.channel))
    results.push(...(await codeOwnersResults(own, route)))
    const teams = route.owners.filter((o) => isTeam(o.owner)).map((o) => `"${o.owner}"`)
    if (!own.host.people.teamReviewRequests && teams.length > 0) {
      results.push({
        name: 'requested-teams', target: entry, status: 'OK',
        reason: `${own.host.words.name}'s review requests name people, not teams: owners ${teams.join(', ')} get pull requests from CODEOWNERS only`,
      })
    }
  }
  for (const [i, f] of follow.entries()) {
    const target = `follow[${i}]`
    // The start-up checks mapped entries' channels only, so a follow channel the bot cannot post in is a WARN here
    // (its posts are refused and logged), not a FAIL the server would not agree with.
    const checked = await channel(target, f.channel)
    results.push(checked.status === 'FAIL' ? { ...checked, status: 'WARN' } : checked)
    if (f.team !== undefined && own.api !== undefined && own.api.teamMembers === undefined) {
      results.push({
        name: 'follow', target, status: 'WARN', reason: `${own.host.words.name} has no teams prherald reads: team "${f.team}" follows nobody`,
        fix: `list the people instead: authors: [login, …] in ${target}`,
      })
    }
  }
  return results
}

/** The entry's CODEOWNERS at the default branch, where the host looks for it, and the owners it names. */
async function codeOwnersResults(own: ConnectedHost, route: Route): Promise<CheckResult[]> {
  const target = `${route.owner}/${route.repo}`
  const { locations, syntax, cannot } = own.host.codeOwners
  const limits = cannot ? `; ${own.host.words.name} cannot: ${cannot}` : ''
  const warn = (reason: string, fix: string | undefined): CheckResult[] => [{ name: 'codeowners', target, status: 'WARN', reason, fix }]
  if (route.repo === '*') {
    return [{ name: 'codeowners', target, status: 'SKIP', reason: `each repository's CODEOWNERS is read when its pull requests arrive${limits}` }]
  }
  if (!own.api) {
    const variable = own.host.variables.token
    return warn(`${variable} is not set: owners rules are inert, the entry's own channels get every pull request`, `set ${variable} to a token that can read the repository's files and pull requests`)
  }
  let file: CodeOwnersFile | undefined
  try {
    for (const path of locations) {
      const found = await own.api.readFile({ owner: route.owner, repo: route.repo, path })
      if (found) {
        file = parseCodeOwners(found.text, path, syntax)
        break
      }
    }
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    return warn(`CODEOWNERS could not be read: ${error.message}`, error.fix)
  }
  if (!file) {
    return warn(`no CODEOWNERS at the default branch in ${locations.join(', ')}: owners rules send nothing there`, `add ${locations[0]} to the repository, or remove owners from ${target}`)
  }
  const problem = file.problems[0]
  if (problem) {
    return warn(`${file.path} line ${problem.line}: ${problem.reason}; the file is not used, the entry's own channels stand in`, `change line ${problem.line} of ${file.path} to what ${own.host.words.name} reads (docs/routing.md)`)
  }
  const named = new Set(file.sections.flatMap((s) => s.rules.flatMap((r) => r.owners)))
  const rules = file.sections.reduce((n, s) => n + s.rules.length, 0)
  const unnamed = route.owners.filter((o) => !named.has(o.owner))
  return [
    { name: 'codeowners', target, status: 'OK', reason: `${file.path} at the default branch: ${rules} rule${rules === 1 ? '' : 's'}${limits}` },
    ...unnamed.map((o): CheckResult => ({
      name: 'codeowners', target, status: 'WARN', reason: `owners."${o.owner}" is named by no line of ${file.path}: ${o.channel} gets nothing from it`,
      fix: `write the owner as ${file.path} does (case aside), or remove it from owners`,
    })),
  ]
}
