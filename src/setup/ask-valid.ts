import { isPrheraldError } from '../errors.ts'

/** How many answers a question takes before the wizard gives up (the flag's value counts as one). */
export const TRIES = 3

export interface AskValidOptions<T> {
  /** The answer from a flag or its environment variable, checked first; undefined asks. */
  given: string | undefined
  ask: () => Promise<string>
  /** The question's own validation (parseRepository, normaliseMentions, …): throws a PrheraldError with the reason. */
  check: (answer: string) => T | Promise<T>
  /** false with --yes: the first wrong answer ends the run, as there is no one to ask again. */
  retry: boolean
  print: (line: string) => void
}

/**
 * One question until its answer passes its check: a wrong answer is shown with the reason and asked again,
 * up to TRIES answers, so that a typo never sends the operator back to the first question. The last
 * reason ends the run (before anything is written). Ctrl+C and unexpected errors end it at once.
 */
export async function askValid<T>(options: AskValidOptions<T>): Promise<T> {
  let given = options.given
  for (let answer = 1; ; answer++) {
    try {
      return await options.check(given ?? await options.ask())
    } catch (error) {
      if (!isPrheraldError(error) || error.code === 'cancelled' || !options.retry || answer >= TRIES) throw error
      const left = TRIES - answer
      options.print(`✖ ${error.message}`)
      if (error.fix) options.print(`  fix: ${error.fix}`)
      options.print(`  try again (${left} ${left === 1 ? 'try' : 'tries'} left)`)
    }
    given = undefined
  }
}
