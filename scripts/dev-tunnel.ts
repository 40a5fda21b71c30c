import { PrheraldError } from '../src/errors.ts'
import { askOnTerminal, cloudflareConsent, cloudflaredInstalled } from './cloudflare-consent.ts'

export interface DevTunnel { publicUrl: string; close: () => Promise<void> }

/** How long cloudflared may take to be downloaded and to hand out a URL; it retries by itself, silently, offline. */
const TUNNEL_DEADLINE_MS = 60_000

function deadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${TUNNEL_DEADLINE_MS / 1000} s`)), TUNNEL_DEADLINE_MS)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** The first and the last line of what failed: untun's errors carry cloudflared's last lines after a blank one. */
function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code
  const lines = (error instanceof Error ? error.message : String(error)).split('\n').map((l) => l.trim()).filter(Boolean)
  const text = lines.length > 1 ? `${lines[0]}: ${lines.at(-1)}` : (lines[0] ?? 'unknown')
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text
}

/**
 * A Cloudflare quick tunnel to `url` (untun downloads cloudflared the first time), or undefined where the person
 * declined Cloudflare's notice. A tunnel that cannot open (no internet, a download refused) is a PrheraldError
 * with what to do, within TUNNEL_DEADLINE_MS, and leaves no cloudflared running.
 */
export async function openDevTunnel(url: string): Promise<DevTunnel | undefined> {
  const consent = await cloudflareConsent({
    env: process.env,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    installed: cloudflaredInstalled(),
    ask: askOnTerminal,
  })
  if (!consent) return undefined
  const { startTunnel } = await import('untun')
  // untun rejects a promise per cloudflared connection that nothing can await (startTunnel does not return
  // them): when cloudflared exits, that would end the process with a stack. Its exit is reported below, or by
  // the session; any other unhandled rejection still ends the process as Node would.
  process.on('unhandledRejection', (error) => {
    if (error instanceof Error && error.message.startsWith('cloudflared exited')) return
    process.nextTick(() => { throw error })
  })
  let tunnel: Awaited<ReturnType<typeof startTunnel>>
  try {
    // Asked above: untun's own question would answer itself where standard input is not a terminal.
    tunnel = await deadline(startTunnel({ url, acceptCloudflareNotice: true }), 'installing cloudflared')
    if (!tunnel) return undefined
    const publicUrl = (await deadline(tunnel.getURL(), 'cloudflared')).replace(/\/+$/, '')
    return { publicUrl, close: tunnel.close }
  } catch (error) {
    await tunnel?.close().catch(() => {})
    throw new PrheraldError('tunnel', `--tunnel: the tunnel did not open (${reason(error)})`, {
      fix: 'check the internet connection (cloudflared is downloaded from github.com and asks api.trycloudflare.com for a URL), or run npm run dev without --tunnel',
    })
  }
}
