import { connectHosts } from '../src/config/connect-hosts.ts'
import { loadSettings, readSecrets } from '../src/config/load-config.ts'
import { scaledClock } from '../src/slack/pacer-clock.ts'
import { createLogger } from '../src/log/logger.ts'
import { startService } from '../src/service.ts'

/**
 * prherald's service, configured from the environment like prherald-server, with the Slack pacer on a clock
 * `scale` times faster than the wall clock: the bench's rate-limited fake Slack runs on the same scale, so
 * 30 minutes of Slack's budgets pass in 30/scale minutes. Not a configuration anyone runs.
 */
const scale = Number(process.argv[2] ?? 1)
const settings = loadSettings(process.env)
const secrets = readSecrets(process.env, settings.hosts)
const logger = createLogger({ format: 'json', level: settings.logLevel })
const service = await startService({ settings, secrets, hosts: connectHosts(settings.hosts, secrets.hosts), logger, pacerClock: scaledClock(scale) })
process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)))
