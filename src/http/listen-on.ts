import type { Server } from 'node:http'
import { formatListen } from '../config/parse-values.ts'
import type { ListenAddress } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'

/** What a refused bind means for the operator, by the socket error's code. */
const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another prherald, or another program, listens there)',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'that host is not an address of this machine',
  ENOTFOUND: 'that host name does not resolve',
  EAI_AGAIN: 'that host name does not resolve',
}

/**
 * Listens on `address`, or throws one PrheraldError naming the address, the setting that gave it (`key`)
 * and the fix, instead of node's `listen EADDRINUSE` with a stack. Binding is the check: asking first whether
 * the port is free would race with whoever takes it next.
 */
export async function listenOn(server: Server, address: ListenAddress, key: string, example: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(address.port, address.host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((cause: unknown) => {
    const code = String((cause as { code?: unknown }).code ?? (cause instanceof Error ? cause.message : cause))
    throw new PrheraldError('config_invalid', `${key}: cannot listen on ${formatListen(address)} (${code})${REASONS[code] ? `: ${REASONS[code]}` : ''}`, {
      cause, fix: `choose a free port of this host for ${key}, e.g. ${example}${code === 'EADDRINUSE' ? ', or stop the program that holds it' : ''}`,
    })
  })
}
