/**
 * The thread reply that pings a newly requested reviewer, e.g. ":eyes: <@U0123ABCD> your review is requested".
 * Pure. `mention` is the reviewer's Slack token (`<@U…>` for a `users:` person, `<!subteam^S…>` for a `teams:`
 * user group); an unmapped reviewer has none, so nobody to ping and no reply.
 */
export function renderReviewPing(mention: string): string {
  return `:eyes: ${mention} your review is requested`
}
