import type { RequestListener } from 'node:http'

/** A dot-segment, a backslash, or either of them percent-encoded: what one reader of a path resolves and another does not. */
const AMBIGUOUS = /\.\.|%2e|\\|%5c/i

const BODY = JSON.stringify({
  error: 'bad_path',
  message: 'the request path holds "..", "\\\\" or an encoded dot or backslash; prherald answers only plain paths such as /webhook/github',
})

/**
 * Answers 400 to a request whose raw path holds `..`, `\`, `%2e` or `%5c`, before any route sees it. h3
 * routes on the normalised path (`\` read as `/`, `..` and `%2e%2e` resolved), while a proxy matches and
 * forwards the raw one: nginx's `location /webhook/` passes `/webhook/..\metrics` on, which h3 would route to
 * `/metrics`. No route of prherald's has such a path, so refusing them costs nothing and leaves no path
 * that means one thing to the proxy and another here. The query is not looked at: the routes that read it
 * (the OAuth pages, src/http/oauth-routes.ts) read named parameters from it, never a path.
 */
export function refuseAmbiguousPaths(handler: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? ''
    const query = url.indexOf('?')
    if (!AMBIGUOUS.test(query < 0 ? url : url.slice(0, query))) return handler(req, res)
    // The body, if any, is not read: closing the connection spares both sides.
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY), connection: 'close' })
    res.end(BODY)
  }
}
