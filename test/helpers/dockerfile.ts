import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Instruction { keyword: string; args: string }

/** The Dockerfile's instructions per stage (comments dropped, continuation lines joined), read statically. */
export function parseDockerfile(text: string): Instruction[][] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const stages: Instruction[][] = []
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? []
    const instruction = { keyword: keyword.toUpperCase(), args }
    if (instruction.keyword === 'FROM') stages.push([])
    stages.at(-1)?.push(instruction)
  }
  return stages
}

export const readDockerfile = (root: string) => parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'))

/** The arguments of every `keyword` instruction in the stage. */
export const argsOf = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args)
