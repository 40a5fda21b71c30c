import type { GitHost } from '../hosts/contract.ts'
import type { ReviewSettings } from '../config/settings.ts'
import { dependencyBotLogins } from '../../machines/dependency-bump.ts'
import { formatTable } from './format-routes.ts'

/**
 * The global `reviews` settings as they take effect, for `prherald-config list`: defaults filled in, and the
 * dependency-bot logins with the host's built-ins added (none on Bitbucket).
 */
export function formatReviews(reviews: ReviewSettings, host: Pick<GitHost, 'dependencyBots'>): string[] {
  const logins = dependencyBotLogins(host.dependencyBots, reviews.dependencyBotLogins)
  return formatTable([
    ['reviews.ignore_bot_reviews', String(reviews.ignoreBotReviews)],
    ['reviews.dependency_bots', reviews.dependencyBots],
    ['reviews.dependency_bot_logins', logins.length > 0 ? logins.join(' ') : '- (no dependency bots: list their logins to announce them on one line)'],
  ])
}
