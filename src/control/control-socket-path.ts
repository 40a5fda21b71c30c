import type { Settings } from '../config/settings.ts'

/**
 * Where the server's control channel listens: a Unix socket beside the SQLite database, so whoever can reach
 * the database (the CLIs) finds it without configuration. Undefined when the database is not a SQLite file
 * (PostgreSQL): there is no file to sit beside, so no control channel, and the commands that change messages
 * work on the database directly (docs/control-channel.md).
 */
export function controlSocketPath(settings: Pick<Settings, 'database'>): string | undefined {
  return settings.database.kind === 'sqlite' ? `${settings.database.path}-control.sock` : undefined
}
