import { PrheraldError } from '../errors.ts'

export interface Choice {
  value: string
  label: string
}

/**
 * How the wizard asks a question. On a terminal the CLI answers with terminalAsker; with `--yes` it
 * answers with `unattended`, which has no one to ask and says which flag to pass instead.
 * Ctrl+C at any question rejects with a `cancelled` PrheraldError.
 */
export interface Asker {
  text(question: string, options: { flag: string; initial?: string; placeholder?: string }): Promise<string>
  /** Like text, but what is typed is shown masked and never kept on the screen: tokens. */
  secret(question: string, options: { flag: string }): Promise<string>
  select(question: string, options: { flag: string; choices: Choice[]; initial?: string }): Promise<string>
  confirm(question: string, options: { flag: string; initial: boolean }): Promise<boolean>
}

/** `--yes`: every answer must come from a flag (or its environment variable); a yes/no takes its default. */
export const unattended: Asker = {
  text: (_question, { flag }) => Promise.reject(missingFlags([flag])),
  secret: (_question, { flag }) => Promise.reject(missingFlags([flag])),
  select: (_question, { flag }) => Promise.reject(missingFlags([flag])),
  confirm: (_question, { initial }) => Promise.resolve(initial),
}

/** One error naming every missing flag, so that an unattended run is fixed in one go. */
export function missingFlags(flags: readonly string[]): PrheraldError {
  const list = flags.length === 1 ? flags[0]! : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)!}`
  return new PrheraldError('usage', `--yes needs ${list}`, { fix: `pass ${flags.length === 1 ? 'it' : 'them'}, or run prherald-setup without --yes to be asked` })
}
