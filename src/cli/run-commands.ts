import type { CAC } from 'cac'
import { reportError } from './report-error.ts'

/**
 * Runs the subcommand named on the command line. No subcommand prints the help and fails; cac's own errors
 * (a missing argument, an unknown option) are usage errors that point at --help, not crashes.
 */
export async function runCommands(cli: CAC): Promise<void> {
  try {
    cli.parse(process.argv, { run: false })
    if (!cli.matchedCommand && !cli.options.help) {
      cli.outputHelp()
      process.exitCode = 1
    } else {
      await cli.runMatchedCommand()
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'CACError') console.error(`${cli.name}: ${error.message}; see ${cli.name} --help`)
    else reportError(error)
    process.exitCode = 1
  }
}
