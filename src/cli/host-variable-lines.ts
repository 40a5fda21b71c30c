import type { CAC } from 'cac'
import type { GitHost } from '../hosts/contract.ts'
import { HOSTS } from '../hosts/registry.ts'

/**
 * A help line of an Environment section: the name, then what it does, in the column the hand-written lines
 * use; a name too long for the column gets a line of its own, and the text goes below it, in the column.
 */
export function helpLine(name: string, text: string): string {
  return name.length < 22 ? `  ${name.padEnd(22)} ${text}` : `  ${name}\n  ${' '.repeat(22)} ${text}`
}

/** A CLI's `--help` Environment section, a line each. */
export function environmentHelp(cli: CAC, lines: readonly string[]): void {
  cli.help((sections) => {
    sections.push({ title: 'Environment', body: lines.join('\n') })
  })
}

/**
 * The Environment lines of every host's variable of one role, from the registry, so that a new host appears in
 * each CLI's `--help` by itself; `what` says what the variable does for that CLI.
 */
export function hostVariableLines(role: 'secret' | 'token' | 'apiUrl', what: (host: GitHost) => string): string[] {
  return [...HOSTS.values()].map((host) => helpLine(host.variables[role], what(host)))
}

/** The Environment lines of every host's further variables, each with what the host says it is. */
export function extraVariableLines(optional: boolean): string[] {
  return [...HOSTS.values()].flatMap((host) => host.variables.extra.map((name) =>
    helpLine(name, `${host.words.name}${optional ? ' (optional)' : ''}: ${host.variables.extraHelp[name] ?? 'docs/configuration.md'}`)))
}

/** Each host's API URL variable, its default and, for a host that has one, where a self-managed install's API is. */
export function apiUrlLines(): string[] {
  return hostVariableLines('apiUrl', (host) =>
    `${host.words.name} API base (default ${host.defaultApiUrl}${host.selfManaged ? `; ${host.selfManaged.name}: ${host.selfManaged.apiUrl}` : ''})`)
}

/** `GITHUB_TOKEN, BITBUCKET_TOKEN or GITLAB_TOKEN`: one role's variables of every host, for an option's description. */
export function hostVariableNames(role: 'secret' | 'token' | 'apiUrl'): string {
  const names = [...HOSTS.values()].map((host) => host.variables[role])
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('')
}

/** Each talk-back host's OAuth client variables (people link their accounts with it). */
export function oauthVariableLines(): string[] {
  return [...HOSTS.values()].flatMap((host) => {
    const variables = host.talkBack?.variables
    if (variables === undefined) return []
    return [
      helpLine(variables.clientId, `(talk-back) ${host.words.name}'s OAuth client id, with ${variables.clientSecret}`),
      helpLine(variables.clientSecret, `(talk-back) ${host.words.name}'s OAuth client secret`),
    ]
  })
}
