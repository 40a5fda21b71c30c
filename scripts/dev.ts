import '../src/cli/require-supported-node.ts'
import { spawnSync } from 'node:child_process'
import { cac } from 'cac'
import { runCommands } from '../src/cli/run-commands.ts'
import { packageRoot } from '../src/package-root.ts'
import { staleSource } from './dev-stale-source.ts'

/**
 * `npm run dev [-- --tunnel] [-- --slack] [-- --port N]`. The npm script runs this file as last built. It reads
 * the command line first, so `--help` answers at once and an unknown option is refused (one line, exit 2,
 * as every prherald command does) without a build; only a command line that will run brings dist/ up to
 * date (`npm run build`, skipped when no source is newer than its build), and then loads the session
 * (scripts/dev-session.ts) from that fresh build.
 */
const cli = cac('npm run dev --')
cli.usage('[--tunnel] [--slack] [--port <port>] [--watch <path>]\n\nprherald on this machine with a stand-in Slack (or --slack) and a throw-away database, restarted on every source change')
cli.option('--tunnel', 'Also open a public URL (a Cloudflare quick tunnel through untun, as listhen --tunnel does)')
cli.option('--port <port>', 'Local port (default: PORT, else 8080, else any free port)')
cli.option('--slack', 'Post to the real Slack with SLACK_BOT_TOKEN (environment or .env) instead of the stand-in')
cli.option('--watch <path>', 'What to watch (repeatable; default: src, machines, scripts and the config file)')

await runCommands(cli, {
  maxArgs: 0,
  run: async (_args, options) => {
    const stale = staleSource(packageRoot())
    if (stale) {
      console.log(`[dev] building dist/ (npm run build): ${stale} is newer than its build`)
      const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: packageRoot(), stdio: 'inherit' })
      if (build.status !== 0) {
        console.error(`[dev] npm run build failed (${build.error?.message ?? `exit status ${build.status ?? build.signal}`}); fix what it printed, then npm run dev again`)
        process.exitCode = 1
        return
      }
    }
    const { runDevSession } = await import('./dev-session.ts')
    await runDevSession(options)
  },
})
