import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { PrheraldError } from '../errors.ts'

export interface SetupFile {
  path: string
  text: string
  /** 0o600 for .env: it holds the Slack token and the webhook secret. */
  mode: number
}

/**
 * Writes the files, after `mayOverwrite` agreed for each one that exists (the CLI asks, or answers from
 * --force). Nothing is written unless every existing file may be replaced, so a refusal leaves no half setup.
 */
export async function writeSetupFiles(files: readonly SetupFile[], mayOverwrite: (path: string) => Promise<boolean>): Promise<void> {
  for (const file of files) {
    if (existsSync(file.path) && !(await mayOverwrite(file.path))) {
      throw new PrheraldError('usage', `${file.path} exists; not overwritten`, {
        fix: 'move it away, or run prherald-setup again and agree to overwrite it (with --yes: add --force)',
      })
    }
  }
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true })
    writeFileSync(file.path, file.text, { mode: file.mode })
    // `mode` applies only when the file is created; an overwritten file keeps its old bits otherwise.
    chmodSync(file.path, file.mode)
  }
}
