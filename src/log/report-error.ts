import { redactUrlsIn } from './redact-url.ts'
import { isPrheraldError } from '../errors.ts'

/** Prints a startup or CLI failure for a person: what is wrong, then what to do. Never a stack for known errors. */
export function reportError(error: unknown, write: (text: string) => void = (t) => process.stderr.write(t)): void {
  if (isPrheraldError(error)) {
    write(`prherald: ${error.message}\n`)
    if (error.fix) write(`  fix: ${error.fix}\n`)
    return
  }
  // An unexpected error's text can quote a URL (fetch does, with its credentials): hide the user-info.
  write(`prherald: unexpected error: ${redactUrlsIn(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`)
}
