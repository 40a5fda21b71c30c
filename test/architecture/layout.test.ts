import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { HOST_IDS } from '../../src/hosts/registry.ts'
import { cyclesOf, importsOf, sourceFiles, unitGraph } from '../helpers/import-graph.ts'

/**
 * The layout's promises (docs/architecture.md), checked on the source itself so that a change that breaks
 * one fails here rather than in the next review: hosts are plug-ins, and the folders do not import in circles.
 */
const ROOT = packageRoot()
const CODE = ['src', 'machines']
const files = CODE.flatMap((dir) => sourceFiles(ROOT, dir))

/** The code of a file without its comments, so a comment may name a host. */
const code = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')

describe('hosts are plug-ins', () => {
  it('nothing outside src/hosts/ names a host: no comparison, case or table keyed by a host id', () => {
    const literal = new RegExp(`(['"\`])(?:${HOST_IDS.join('|')})\\1`)
    const offenders = files
      .filter((file) => !file.startsWith('src/hosts/'))
      .flatMap((file) => code(file).split('\n').map((line, i) => ({ file, line: i + 1, text: line.trim() })))
      .filter(({ text }) => literal.test(text))
    expect(offenders).toEqual([])
  })

  it('the machine, the Slack renderer and the stores never import a host', () => {
    const core = files.filter((file) => file.startsWith('machines/') || file.startsWith('src/store/') || /^src\/slack\/render/.test(file))
    const offenders = core.flatMap((file) => importsOf(ROOT, file).filter((target) => target.startsWith('src/hosts/')).map((target) => `${file} -> ${target}`))
    expect(offenders).toEqual([])
  })

  it('a host imports neither the configuration nor the service around it', () => {
    const hosts = files.filter((file) => file.startsWith('src/hosts/'))
    const offenders = hosts.flatMap((file) => importsOf(ROOT, file)
      .filter((target) => !target.startsWith('src/hosts/') && !target.startsWith('machines/') && !/^src\/(errors|read-fields)\.ts$/.test(target) && !target.startsWith('src/log/') && !target.startsWith('src/routing/route-by-paths'))
      .filter((target) => !target.startsWith('src/store/store.ts'))
      .map((target) => `${file} -> ${target}`))
    expect(offenders).toEqual([])
  })
})

describe('the folder graph', () => {
  it('has no cycles among the folders of src/ and machines/ (a folder imports only those below it)', () => {
    expect(cyclesOf(unitGraph(ROOT, CODE))).toEqual([])
  })

  it('finds a cycle when there is one (so an empty answer means something)', () => {
    const graph = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]])
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']])
  })
})

describe('the store decodes what it stores', () => {
  it('the versioned readers (stored-json.ts) are called only in src/store/, and nothing else parses a stored lifecycle or event', () => {
    const offenders = files.filter((file) => !file.startsWith('src/store/'))
      .filter((file) => /\breadStored(Lifecycle|Event)\b|\/stored-json\.ts'|JSON\.parse\([^)]*\.(lifecycle|event|mentions|reactions)\b/.test(code(file)))
    expect(offenders).toEqual([])
  })
})

describe('the store by role', () => {
  it('outside src/store/ a part names the ports it uses, never the whole Store (the composition roots get it from openStore)', () => {
    const offenders = files.filter((file) => !file.startsWith('src/store/')).filter((file) => /\bStore\b/.test(code(file)))
    expect(offenders).toEqual([])
  })
})

describe('one pull-request key', () => {
  it('only pullRequestKey formats a pull request\'s key (`provider:owner/repo#number`)', () => {
    const offenders = files.filter((file) => file !== 'machines/pull-request-event.ts')
      .filter((file) => /`\$\{[\w.]*provider\}:\$\{/.test(code(file)))
    expect(offenders).toEqual([])
  })
})

describe('one inbound pipeline for Slack\'s requests', () => {
  it('is built once, at the composition root, and both receivers are handed that one', () => {
    const builders = files.flatMap((file) => (code(file).match(/\bcreateSlackInbound\(/g) ?? []).map(() => file))
    expect(builders).toEqual(['src/inbound/slack-inbound.ts', 'src/service.ts'])
  })
})
