import type { Server } from 'node:http'
import { listen } from 'listhen'
import { connectHosts } from '../src/config/connect-hosts.ts'
import { loadSettings, readSecrets, secretValues } from '../src/config/load-config.ts'
import { createLogger } from '../src/log/logger.ts'
import { startService } from '../src/service.ts'
import { reportError } from '../src/log/report-error.ts'

/**
 * The process `npm run dev` restarts on every change (scripts/dev.ts): prherald itself, served by listhen's
 * `listen()` over the app's Node handler. Everything comes from the environment the supervisor sets: the
 * config file, the throw-away database, the stand-in Slack, the port and the public URL of the tunnel.
 */
async function main(): Promise<void> {
  const settings = loadSettings(process.env)
  const secrets = readSecrets(process.env, settings.hosts)
  const logger = createLogger({
    format: settings.logFormat,
    level: settings.logLevel,
    redact: secretValues(secrets),
  })
  const port = Number(process.env.PRHERALD_DEV_PORT ?? settings.listen.port)

  const service = await startService({
    settings,
    secrets,
    hosts: connectHosts(settings.hosts, secrets.hosts),
    logger,
    // listhen brings its own h3 (v1); only its listener is used, over the Node handler of the app's h3 v2.
    listen: async (handler) => {
      const listener = await listen(handler, {
        name: 'prherald', port, hostname: '127.0.0.1', isProd: true, public: false, showURL: true, qr: false,
        open: false, clipboard: false, autoClose: false, publicURL: settings.publicUrl,
      })
      return listener.server as Server
    },
  })
  console.log(`[dev] prherald (pid ${process.pid}) listening at ${service.url}`)

  const stop = () => void service.stop().then(() => process.exit(0), () => process.exit(1))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

// A configuration error reads as prherald-server prints it (what is wrong, then the fix), not as a stack.
await main().catch((error: unknown) => {
  reportError(error)
  process.exit(1)
})
