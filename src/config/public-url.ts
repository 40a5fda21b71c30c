/** Hosts on this machine only: a plain http:// URL there never crosses a network (the dev server, tests). */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Why a public URL cannot be where git hosts deliver, or undefined when it can. Deliveries carry the secret
 * (GitLab's token itself) and the payload: over plain http anyone on the path reads them, so `http://` is
 * refused except on loopback. One rule for the wizard, the doctor and create-webhook.
 */
export function publicUrlProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'is not a URL; give the public base URL, e.g. https://prherald.example.com'
  }
  if (parsed.protocol === 'https:') return undefined
  if (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)) return undefined
  if (parsed.protocol === 'http:') {
    return 'is http://: deliveries would cross the network unencrypted, their secret readable; use the https:// URL of your proxy or tunnel (http:// only on 127.0.0.1, ::1 or localhost)'
  }
  return `is ${parsed.protocol}//, not https://; give the public base URL, e.g. https://prherald.example.com`
}
