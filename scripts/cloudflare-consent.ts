import { existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { PrheraldError } from '../src/errors.ts'

/** Where Cloudflare's terms are, as the notice untun prints before it downloads cloudflared links them. */
export const CLOUDFLARE_TERMS = 'https://www.cloudflare.com/website-terms/'

export interface ConsentInput {
  env: NodeJS.ProcessEnv
  /** Whether someone can answer a question: standard input and output are a terminal. */
  interactive: boolean
  /** Whether cloudflared is already on this machine, where untun keeps it. */
  installed: boolean
  /** Asks a yes/no question and resolves to the answer typed. */
  ask: (question: string) => Promise<string>
}

/**
 * Where untun keeps the cloudflared it downloaded: its `cloudflaredBinPath` is
 * `join(tmpdir(), "node-untun", "cloudflared.<CLOUDFLARED_VERSION>")` (untun/dist/_chunks/cloudflared.mjs; the
 * version from the CLOUDFLARED_VERSION variable, else the one untun pins). Any cloudflared there counts: untun
 * asks only before a download.
 */
export function cloudflaredInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = join(tmpdir(), 'node-untun')
  if (env.CLOUDFLARED_VERSION) return existsSync(join(dir, `cloudflared.${env.CLOUDFLARED_VERSION}`))
  return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith('cloudflared.'))
}

/**
 * Whether `--tunnel` may download cloudflared: asked here, before untun runs, because untun's own question
 * answers itself "yes" when standard input is not a terminal (`if (!process.stdin.isTTY) return true`, untun's
 * prompt) and so prints Cloudflare's notice without asking. Nothing to ask when cloudflared is already there, or
 * when UNTUN_ACCEPT_CLOUDFLARE_NOTICE says the notice was accepted. Where nobody can answer, the tunnel is
 * refused with what to do; an answer other than yes declines it.
 */
export async function cloudflareConsent(input: ConsentInput): Promise<boolean> {
  if (input.installed || input.env.UNTUN_ACCEPT_CLOUDFLARE_NOTICE) return true
  if (!input.interactive) {
    throw new PrheraldError('tunnel', '--tunnel downloads cloudflared and uses Cloudflare\'s quick tunnels, which asks you to accept Cloudflare\'s terms first, and nobody can answer here (not a terminal)', {
      fix: `read ${CLOUDFLARE_TERMS}, then run it in a terminal, or set UNTUN_ACCEPT_CLOUDFLARE_NOTICE=1`,
    })
  }
  const answer = await input.ask(`--tunnel downloads cloudflared from GitHub and opens a Cloudflare quick tunnel, under Cloudflare's terms (${CLOUDFLARE_TERMS}). Accept them? (y/N) `)
  return /^y(es)?$/i.test(answer.trim())
}

/** The question asked on this process's terminal. */
export async function askOnTerminal(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return await terminal.question(question)
  } finally {
    terminal.close()
  }
}
