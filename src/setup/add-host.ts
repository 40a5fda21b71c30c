import { existsSync, readFileSync } from 'node:fs'
import { isMap, isScalar, Pair, parseDocument, Scalar } from 'yaml'
import { readConfigDocument } from '../config/load-config.ts'
import { hostBlocks } from '../config/host-blocks.ts'
import { hostOf } from '../hosts/registry.ts'
import { envLine, talkBackEnvLines, type SetupAnswers } from './render-setup-files.ts'

/** The hosts of the configuration file already there, when it is there and valid; undefined otherwise. */
export function existingHosts(configFile: string): string[] | undefined {
  if (!existsSync(configFile)) return undefined
  try {
    return hostBlocks(readConfigDocument(configFile)).map((block) => block.id)
  } catch {
    return undefined
  }
}

/**
 * The configuration with the answers' host added beside the hosts it has (docs/configuration.md#several-git-hosts):
 * a single-host file moves to `hosts:` first, its `mappings`, `users` and `teams` kept as they are (comments
 * too); every other key is left alone.
 */
export function addHostToConfig(text: string, answers: Pick<SetupAnswers, 'provider' | 'owner' | 'repo' | 'channel' | 'mentions' | 'talkBack'>): string {
  const doc = parseDocument(text)
  if (!doc.has('hosts') && isMap(doc.contents)) {
    const single = String(doc.get('git_provider'))
    const pairs = doc.contents.items
    // The comment above git_provider (often the file's heading) stays at the top, above hosts:.
    const heading = pairs.find((pair) => isScalar(pair.key) && pair.key.value === 'git_provider')
    const comment = heading && isScalar(heading.key) ? heading.key.commentBefore : undefined
    for (const key of ['mappings', 'users', 'teams']) {
      const node = doc.get(key, true)
      if (node !== undefined) doc.setIn(['hosts', single, key], node)
      doc.delete(key)
    }
    doc.delete('git_provider')
    // hosts: where git_provider was, first, as an operator reads the file.
    const at = pairs.findIndex((pair) => isScalar(pair.key) && pair.key.value === 'hosts')
    const [hosts] = pairs.splice(at, 1)
    if (hosts) {
      const key = isScalar(hosts.key) ? hosts.key : new Scalar('hosts')
      if (comment) key.commentBefore = comment
      pairs.unshift(new Pair(key, hosts.value) as (typeof pairs)[number])
    }
  }
  // Talk-back turned on for the added repository only: the other hosts' repositories keep what they have.
  const talkBack = answers.talkBack ? { slack: { talk_back: { thread_replies: answers.talkBack.threadReplies, reviews: answers.talkBack.reviews ? 'on' : 'off' } } } : {}
  doc.setIn(['hosts', answers.provider], doc.createNode({
    mappings: { [answers.owner]: { [answers.repo]: { channel: answers.channel, mentions: answers.mentions, ...talkBack } } },
  }))
  return doc.toString()
}

/**
 * .env with the added host's variables set (its webhook secret, its token and API address when given) and
 * the Slack token the wizard checked; every other line kept, the other hosts' secrets among them.
 */
export function addHostToEnv(text: string, answers: SetupAnswers): string {
  const names = hostOf(answers.provider).variables
  const set = new Map<string, string>([['SLACK_BOT_TOKEN', answers.slackToken], [names.secret, answers.webhookSecret]])
  if (answers.gitToken) set.set(names.token, answers.gitToken)
  if (answers.gitApiUrl) set.set(names.apiUrl, answers.gitApiUrl)
  for (const [name, value] of Object.entries(answers.gitVariables ?? {})) set.set(name, value)
  for (const [name, value] of answers.talkBack?.oauthVariables ?? []) if (value !== undefined) set.set(name, value)
  const lines = text.replace(/\n$/, '').split('\n').filter((line) => !set.has(line.split('=')[0]!.trim()))
  // A key already there stays: a new one would unlink everyone linked under it.
  const keyThere = lines.some((line) => line.split('=')[0]!.trim() === 'PRHERALD_TOKEN_KEY')
  const talkBack = answers.talkBack && {
    ...answers.talkBack,
    oauthVariables: answers.talkBack.oauthVariables.filter(([name, value]) => value === undefined && !lines.some((line) => line.includes(`${name}=`))),
    tokenKey: keyThere ? undefined : answers.talkBack.tokenKey,
  }
  return `${[...lines, ...[...set].map(([name, value]) => envLine(name, value)), ...talkBackEnvLines(talkBack)].join('\n')}\n`
}

/** Reads a file the wizard is about to extend. */
export function readText(path: string): string {
  return readFileSync(path, 'utf8')
}
