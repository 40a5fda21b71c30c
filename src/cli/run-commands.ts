import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CAC, Command } from 'cac'
import { packageRoot } from '../package-root.ts'
import { reportError } from '../log/report-error.ts'

/** Exit status of a command line that was never run: an unknown option, command or argument (as getopt-style tools do). */
export const USAGE_ERROR = 2

/** The CLI's own action when it has no subcommands (prherald-server, prherald-doctor). */
export interface MainCommand {
  /** How many positional arguments it accepts; more is a usage error. */
  maxArgs: number
  run: (args: string[], options: Record<string, unknown>) => unknown
}

class UsageError extends Error {}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
}

/** cac's own checks of a command line: unknown options, missing option values, missing or extra arguments. */
function checkCommandLine(command: Command): void {
  command.checkUnknownOptions()
  command.checkOptionValue()
  command.checkRequiredArgs()
  command.checkUnusedArgs()
}

/**
 * `--config <file>`, declared here for every CLI that reads the configuration, so that each one takes it the
 * same way. It sets PRHERALD_CONFIG_FILE for the run (the flag wins over the variable and over `.env`, which
 * never overrides a variable already set). A CLI that declares its own (prherald-setup: where to write the
 * file) keeps it.
 */
function declareConfigOption(cli: CAC): ((options: Record<string, unknown>) => void) | undefined {
  if (cli.globalCommand.hasOption('config')) return undefined
  cli.option('--config <file>', 'Configuration file (default: PRHERALD_CONFIG_FILE, else ./config.yaml); config.lock is beside it')
  return (options) => {
    if (options.config === undefined) return
    if (typeof options.config !== 'string' || options.config.trim() === '') throw new UsageError('--config needs a file name, e.g. --config ./config.yaml')
    process.env.PRHERALD_CONFIG_FILE = options.config
  }
}

/**
 * Parses the command line strictly and runs it. Every prherald CLI goes through here, so each one has
 * `--help`, `--version` and `--config <file>`, and rejects what it does not know (option, command, extra argument) with one
 * line on stderr and exit status 2 instead of silently ignoring it. With `main`, the CLI has no subcommands
 * and `main.run` is its action; without it, the matched subcommand runs, and no subcommand prints the help.
 * Errors thrown by the action are reported by reportError (exit 1), never as a stack for known errors.
 *
 * A new CLI needs nothing else: declare its options on `cac('prherald-<name>')`, then either
 *   await runCommands(cli)                                                  // subcommands with .action()
 *   await runCommands(cli, { maxArgs: 0, run: (_args, options) => go(options) })   // one command, no subcommands
 */
export async function runCommands(cli: CAC, main?: MainCommand): Promise<void> {
  const applyConfigOption = declareConfigOption(cli)
  if (!cli.globalCommand.versionNumber) cli.version(packageVersion())
  if (!cli.showHelpOnExit) cli.help()
  let run: () => unknown
  try {
    const { args, options } = cli.parse(process.argv, { run: false })
    // cac has printed the help or the version already, except --version after a subcommand.
    if (options.help) return
    if (options.version) {
      if (cli.matchedCommandName !== undefined) cli.outputVersion()
      return
    }
    applyConfigOption?.(options)
    if (main) {
      // Not checkUnusedArgs: the global command declares no arguments, main.maxArgs says how many it takes.
      cli.globalCommand.checkUnknownOptions()
      cli.globalCommand.checkOptionValue()
      if (args.length > main.maxArgs) throw new UsageError(`unexpected argument "${String(args[main.maxArgs])}"`)
      run = () => main.run(args.map(String), options)
    } else if (cli.matchedCommand) {
      checkCommandLine(cli.matchedCommand)
      run = () => cli.runMatchedCommand()
    } else {
      cli.globalCommand.checkUnknownOptions()
      if (args.length > 0) throw new UsageError(`unknown command "${String(args[0])}"; commands: ${cli.commands.map((c) => c.name).join(', ')}`)
      cli.outputHelp()
      process.exitCode = USAGE_ERROR
      return
    }
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof Error && error.name === 'CACError')) throw error
    console.error(`${cli.name}: ${error.message}; see ${cli.name} --help`)
    process.exitCode = USAGE_ERROR
    return
  }
  try {
    await run()
  } catch (error) {
    reportError(error)
    process.exitCode = 1
  }
}
