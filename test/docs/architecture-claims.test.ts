import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.ts'
import { HOST_IDS } from '../../src/hosts/registry.ts'
import { sourceFiles } from '../helpers/import-graph.ts'

/**
 * The claims docs/architecture.md makes about where things happen, checked on the source: each names one module
 * as the only one that does a thing, and no other file in src/ does it. Comments are left out of the search.
 */
const ROOT = packageRoot()
const files = sourceFiles(ROOT, 'src')
const code = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
const doing = (pattern: RegExp) => files.filter((file) => pattern.test(code(file)))

describe('docs/architecture.md, checked', () => {
  it('the outbox is the one module that posts (chat.postMessage through the client\'s postMessage and postReply)', () => {
    expect(doc).toContain('the one module that makes writes that create')
    // The client itself defines them over one chat.postMessage call (postOnce); every caller of theirs is the outbox.
    // A worker thread's or a MessagePort's postMessage (the acknowledging thread's messages) is not Slack's.
    expect(doing(/(?<!\b(?:port|worker))\.(postMessage|postReply)\(/).filter((file) => file !== 'src/slack/slack-client.ts')).toEqual(['src/slack/outbox.ts'])
    expect(code('src/slack/slack-client.ts').match(/\.chat\.postMessage\(/g)).toHaveLength(1)
  })

  it('the message client\'s changes (posts, updates, deletes, reactions) go through its client that never retries', () => {
    expect(doc).toMatch(/whose changes never do: posts, updates, reactions, deletes/)
    const client = code('src/slack/slack-client.ts')
    expect(client).toMatch(/changer\.chat\.delete\(/)
    expect(client).not.toMatch(/\bclient\.(chat\.(postMessage|update|delete)|reactions\.(add|remove))\(/)
  })

  it('WebClients are built in src/slack/slack-api.ts only; response_url answers are a plain POST there', () => {
    expect(doing(/new WebClient\(/)).toEqual(['src/slack/slack-api.ts'])
    expect(doing(/\bpostToResponseUrl\b.*=|function postToResponseUrl/)).toEqual(['src/slack/slack-api.ts'])
  })

  it('hosts are connected in src/config/connect-hosts.ts only, their talk-back APIs included', () => {
    expect(doc).toContain('the one place a host\'s API clients are connected')
    const outsideHosts = files.filter((file) => !file.startsWith('src/hosts/'))
    expect(outsideHosts.filter((file) => /\b(host|talkBack)\.connect\(/.test(code(file)))).toEqual(['src/config/connect-hosts.ts'])
  })

  it('only http/ answers with an error status; the one answer outside it (/metrics) is a 200', () => {
    const answers = files.filter((file) => !file.startsWith('src/http/')).filter((file) => /\bstatus:\s*\d{3}\b/.test(code(file)))
    expect(answers).toEqual(['src/metrics/metrics-route.ts'])
    expect(code('src/metrics/metrics-route.ts').match(/\bstatus:\s*(\d{3})\b/g)).toEqual(['status: 200'])
  })

  it('the overview names every git host', () => {
    const overview = doc.slice(0, doc.indexOf('| step |'))
    expect(HOST_IDS).toHaveLength(3)
    for (const name of ['GitHub', 'GitLab', 'Bitbucket']) expect(overview).toContain(name)
  })

  it('the intake\'s filter rule is the one filter-intake.ts applies: this server\'s mailboxes and pending deliveries anywhere', () => {
    expect(doc).toContain('on this server (its mailboxes) or any other (a pending delivery of it in the store)')
    expect(code('src/intake/filter-intake.ts')).toMatch(/pendingDeliveriesOf\(/)
  })
})
