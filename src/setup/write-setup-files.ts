import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
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
    writeReplacing(file)
  }
}

/**
 * A new file, created exclusively with its mode (never an existing one, nor a symlink's target: the secrets
 * are never written under an old file's looser mode), then renamed over the path, which replaces a symlink
 * there rather than following it.
 */
function writeReplacing(file: SetupFile): void {
  const temporary = join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    writeFileSync(temporary, file.text, { mode: file.mode, flag: 'wx' })
    renameSync(temporary, file.path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}
