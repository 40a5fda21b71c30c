import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { loadSettings } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'

/** Loads `.env` from the working directory if present; variables already in the environment win. */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): void {
  const file = resolve(cwd, '.env')
  if (!existsSync(file)) return
  for (const [key, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (env[key] === undefined) env[key] = value
  }
}

/** The settings a command runs with: `.env` first, so that it can name the config file. */
export function commandSettings(): Settings {
  loadEnvFile()
  return loadSettings(process.env)
}
