#!/usr/bin/env node
import { loadSettings, readSecrets } from '../config/load-config.ts'
import { createLogger } from '../log/logger.ts'
import { startService } from '../service.ts'
import { loadEnvFile } from './load-env-file.ts'
import { reportError } from './report-error.ts'

/** prherald-server: configuration first (exit 1 on any problem), then the service, then signal handling. */
async function main(): Promise<void> {
  loadEnvFile()
  const settings = loadSettings(process.env)
  const secrets = readSecrets(process.env, settings.gitProvider)
  const logger = createLogger({
    format: settings.logFormat,
    level: settings.logLevel,
    redact: [secrets.slackBotToken, secrets.webhookSecret, secrets.gitToken ?? ''],
  })
  const service = await startService({ settings, secrets, logger })
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info('signal received', { signal })
    service.stop().then(() => process.exit(0), (error: unknown) => {
      reportError(error)
      process.exit(1)
    })
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
}

main().catch((error: unknown) => {
  reportError(error)
  process.exit(1)
})
