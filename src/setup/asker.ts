import { PrheraldError } from '../errors.ts'

export interface Choice {
  value: string
  label: string
}

/**
 * How the wizard asks a question. The CLI answers with consola's prompts on a terminal; with `--yes` it
 * answers with `unattended`, which has no one to ask and says which flag to pass instead.
 */
export interface Asker {
  text(question: string, options: { flag: string; initial?: string; placeholder?: string }): Promise<string>
  select(question: string, options: { flag: string; choices: Choice[]; initial?: string }): Promise<string>
  confirm(question: string, options: { flag: string; initial: boolean }): Promise<boolean>
}

/** `--yes`: every answer must come from a flag (or its environment variable); a yes/no takes its default. */
export const unattended: Asker = {
  text: (_question, { flag }) => Promise.reject(missing(flag)),
  select: (_question, { flag }) => Promise.reject(missing(flag)),
  confirm: (_question, { initial }) => Promise.resolve(initial),
}

function missing(flag: string): PrheraldError {
  return new PrheraldError('usage', `--yes needs ${flag}`, { fix: `pass ${flag}, or run prherald-setup without --yes to be asked` })
}
