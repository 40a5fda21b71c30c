import type { Readable, Writable } from 'node:stream'
import { PrheraldError } from '../errors.ts'
import type { Asker } from './asker.ts'

export interface Terminal {
  input: Readable
  output: Writable
}

type Clack = typeof import('@clack/prompts')

/**
 * The questions on a terminal, with @clack/prompts (consola's prompts have no masked input). Loaded on the
 * first question, so that `--yes` and the other commands never load it. The streams are the process's
 * stdin and stdout in the CLI, and plain streams in the tests, which drive this same code.
 */
export function terminalAsker(terminal: Terminal): Asker {
  let loaded: Promise<Clack> | undefined
  const clack = () => (loaded ??= import('@clack/prompts'))
  const answered = async <T>(answer: T): Promise<Exclude<T, symbol>> => {
    if ((await clack()).isCancel(answer)) throw new PrheraldError('cancelled', 'setup cancelled, nothing written')
    return answer as Exclude<T, symbol>
  }
  const io = { input: terminal.input, output: terminal.output }
  return {
    // An empty answer is '' (never undefined): the question's initial value when it has one.
    text: async (message, { initial, placeholder }) =>
      (await answered(await (await clack()).text({ ...io, message, placeholder, defaultValue: initial }))) ?? initial ?? '',
    secret: async (message) => (await answered(await (await clack()).password({ ...io, message }))) ?? '',
    select: async (message, { choices, initial }) =>
      answered(await (await clack()).select({ ...io, message, options: choices, initialValue: initial })),
    confirm: async (message, { initial }) => answered(await (await clack()).confirm({ ...io, message, initialValue: initial })),
  }
}
