/** A Caddyfile line and the block it opens, if any; read statically (no Caddy runs in the tests). */
export interface CaddyDirective { name: string; args: string[]; block: CaddyDirective[] }

/** Parses the subset of Caddyfile syntax prherald's Caddyfile uses: directives, arguments, nested blocks. */
export function parseCaddyfile(text: string): CaddyDirective[] {
  const root: CaddyDirective[] = []
  const open: CaddyDirective[][] = [root]
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim()
    if (!line) continue
    if (line === '}') {
      open.pop()
      continue
    }
    const words = line.split(/\s+/)
    const opensBlock = words.at(-1) === '{'
    if (opensBlock) words.pop()
    const [name = '', ...args] = words
    const directive: CaddyDirective = { name, args, block: [] }
    open.at(-1)?.push(directive)
    if (opensBlock) open.push(directive.block)
  }
  return root
}

/** Every directive in the tree, depth first, with the chain of blocks it sits in. */
export function walk(directives: CaddyDirective[], parents: CaddyDirective[] = []): { directive: CaddyDirective; parents: CaddyDirective[] }[] {
  return directives.flatMap((directive) => [{ directive, parents }, ...walk(directive.block, [...parents, directive])])
}

const matchesPath = (pattern: string, path: string) =>
  pattern.endsWith('*') ? path.toLowerCase().startsWith(pattern.slice(0, -1).toLowerCase()) : path.toLowerCase() === pattern.toLowerCase()

/** The paths a handle's matcher names: an inline path, or a named matcher's `@name path a b …` in the site. */
export function matcherPaths(site: CaddyDirective, handle: CaddyDirective): string[] {
  const [matcher = ''] = handle.args
  if (matcher.startsWith('/')) return [matcher]
  const named = site.block.find((d) => d.name === matcher && d.args[0] === 'path')
  return named ? named.args.slice(1) : []
}

/**
 * The `handle` block of a site that serves `path`: handle blocks are mutually exclusive, and Caddy tries
 * those with a path matcher (longest first) before the one without, as its Caddyfile adapter sorts them.
 */
export function handleFor(site: CaddyDirective, path: string): CaddyDirective | undefined {
  const handles = site.block.filter((d) => d.name === 'handle')
  const longest = (h: CaddyDirective) => Math.max(0, ...matcherPaths(site, h).map((p) => p.length))
  const withPath = handles.filter((h) => h.args.length > 0).sort((a, b) => longest(b) - longest(a))
  return withPath.find((h) => matcherPaths(site, h).some((p) => matchesPath(p, path))) ?? handles.find((h) => h.args.length === 0)
}
