import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/** Every .ts file below `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(root, path)).isDirectory() ? sourceFiles(root, path) : path.endsWith('.ts') ? [path] : []
  })
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

/** The relative imports of one file (type-only ones included), resolved to paths relative to `root`. */
export function importsOf(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  return [...text.matchAll(IMPORT)].map((m) => relative(root, resolve(root, dirname(file), (m[1] ?? m[2])!)))
}

/**
 * The unit a file belongs to in the layout: its first folder under src/ (`src/hosts`, `src/slack`),
 * `machines`, or the file itself for the few files at the top of src/ (service.ts, errors.ts…).
 */
export function unitOf(file: string): string {
  const parts = file.split('/')
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : file
  return parts[0]!
}

/** Edges between units: unit → the units it imports. */
export function unitGraph(root: string, dirs: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const dir of dirs) {
    for (const file of sourceFiles(root, dir)) {
      const from = unitOf(file)
      const edges = graph.get(from) ?? new Set<string>()
      graph.set(from, edges)
      for (const target of importsOf(root, file)) {
        const to = unitOf(target)
        if (to !== from) edges.add(to)
      }
    }
  }
  return graph
}

/** The cycles of a graph, each as the list of its units (Tarjan's strongly connected components of more than one). */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let index = 0
  const stack: string[] = []
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string) => {
    indices.set(node, index)
    low.set(node, index++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!))
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = []
      let top: string
      do {
        top = stack.pop()!
        onStack.delete(top)
        component.push(top)
      } while (top !== node)
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!indices.has(node)) visit(node)
  return cycles
}
