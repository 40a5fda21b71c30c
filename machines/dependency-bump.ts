/**
 * Dependency-bot pull requests: who counts as a dependency bot, and whether a bump is a security
 * update. Pure. The security check fails safe: it looks only for the markers the bots themselves write, and
 * anything it cannot recognise is a routine bump, so a channel is never alarmed by a guess.
 */

/** How a dependency-bot pull request was classified when it was announced; kept in the machine context. */
export interface DependencyBump {
  /** The bot's login, as the host names the pull request's author. */
  bot: string
  /** True only when the pull request carries one of the security markers (see securityUpdate). */
  security: boolean
  /** `reviews.dependency_bots` at announcement: true renders the one-line message. */
  compact: boolean
}

/** The fields the security check reads; the decoder reduces them to one boolean and keeps nothing else. */
export interface BumpText {
  title: string
  labels: readonly string[]
  /** The pull request's body (GitHub) or description (Bitbucket); never logged or stored. */
  body: string | undefined
}

/** GitHub advisory ids (GHSA-xxxx-xxxx-xxxx) and CVE ids (CVE-2024-12345). */
const ADVISORY_ID = /\b(?:GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,})\b/i
/** Renovate appends `[SECURITY]` (vulnerabilityAlerts.commitMessageSuffix) to the title; a prefix is accepted too. */
const RENOVATE_SECURITY_TITLE = /(?:^\s*\[SECURITY\]|\[SECURITY\]\s*$)/
/** Bodies are capped by both hosts (65,536 characters on GitHub); this bounds the scan if a payload is not. */
const MAX_BODY = 262_144

/**
 * The text of a section that starts at `start` and runs to `end`, or to the end of the body; undefined
 * when the start marker is absent.
 */
function section(body: string, start: RegExp, end: RegExp): string | undefined {
  const found = start.exec(body)
  if (!found) return undefined
  const rest = body.slice(found.index + found[0].length)
  const stop = end.exec(rest)
  return stop ? rest.slice(0, stop.index) : rest
}

/**
 * Dependabot writes `<details><summary>Vulnerabilities fixed</summary>` with each advisory's GHSA link inside.
 * Renovate writes a `### GitHub Vulnerability Alerts` heading with one `#### [CVE-…](…)` entry per alert.
 * An id is required inside the section, so the heading alone (or a quoted changelog line) is not enough.
 */
function bodyNamesAdvisory(body: string): boolean {
  const text = body.length > MAX_BODY ? body.slice(0, MAX_BODY) : body
  const dependabot = section(text, /<summary>\s*Vulnerabilities fixed\s*<\/summary>/i, /<\/details>/i)
  if (dependabot !== undefined && ADVISORY_ID.test(dependabot)) return true
  const renovate = section(text, /^#{2,3} GitHub Vulnerability Alerts\s*$/m, /^#{1,3} (?!#)/m)
  return renovate !== undefined && ADVISORY_ID.test(renovate)
}

/** True when the pull request is a security update by any of the bots' own markers. */
export function securityUpdate(text: BumpText): boolean {
  if (text.labels.some((label) => label.trim().toLowerCase() === 'security')) return true
  if (RENOVATE_SECURITY_TITLE.test(text.title)) return true
  return text.body !== undefined && bodyNamesAdvisory(text.body)
}

/** The logins announced as dependency bumps: the host's built-ins (GitHost.dependencyBots) plus `reviews.dependency_bot_logins`, lower-cased. */
export function dependencyBotLogins(builtIn: readonly string[], configured: readonly string[]): string[] {
  return [...new Set([...builtIn, ...configured].map((l) => l.toLowerCase()))]
}

/**
 * The classification of a pull request opened by a dependency bot, or undefined for any other author. The
 * intake attaches it to each event; the machine keeps the one it sees at announcement.
 */
export function classifyDependencyBump(
  event: { pr: { author: string; securityUpdate?: boolean } },
  reviews: { dependencyBots: 'compact' | 'standard'; dependencyBotLogins: readonly string[] },
  builtIn: readonly string[],
): DependencyBump | undefined {
  // Runs before every acknowledgement: compared in place, not through a merged list built per delivery.
  const author = event.pr.author.toLowerCase()
  const names = (logins: readonly string[]) => logins.some((l) => l.toLowerCase() === author)
  if (!names(builtIn) && !names(reviews.dependencyBotLogins)) return undefined
  return { bot: event.pr.author, security: event.pr.securityUpdate === true, compact: reviews.dependencyBots === 'compact' }
}
