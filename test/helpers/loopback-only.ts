import { Socket, isIPv4, isIPv6 } from 'node:net'

/**
 * Tests reach nothing beyond this machine: Slack and the git hosts are fakes on 127.0.0.1. This patches every
 * TCP connect of the process (net.Socket's `connect`, which node:http, node:tls, undici's fetch, pg and ws
 * all go through) so that one to any other address is refused before it leaves: the socket errors with
 * ECONNREFUSED and `onRefused` is told the target, so the test run can fail on it rather than pass as if
 * offline. Unix sockets and loopback addresses connect as before.
 */
export function refuseNonLoopback(onRefused: (target: string) => void): void {
  const connect = Socket.prototype.connect as (this: Socket, ...args: unknown[]) => Socket
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]): Socket {
    const target = tcpTargetOf(args)
    if (target === undefined || isLoopback(target.host)) return connect.apply(this, args)
    const named = `${target.host}:${String(target.port)}`
    onRefused(named)
    const error = Object.assign(new Error(`connect ECONNREFUSED ${named} (tests reach only 127.0.0.1)`), { code: 'ECONNREFUSED' })
    process.nextTick(() => this.destroy(error))
    return this
  } as typeof Socket.prototype.connect
}

const refusedHere: string[] = []

/** Notes a refusal in this process, for `takeRefusals`. */
export function noteRefusal(target: string): void {
  refusedHere.push(target)
}

/** The refusals noted in this process since the last call, cleared. */
export function takeRefusals(): string[] {
  return refusedHere.splice(0)
}

interface TcpTarget { host: string; port: unknown }

/** The host and port of a `connect(...)` call in any of its forms; undefined for a Unix socket path. */
function tcpTargetOf(args: unknown[]): TcpTarget | undefined {
  // net.connect() hands Socket#connect its arguments already normalised, as one array.
  const [first, second] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args
  if (typeof first === 'object' && first !== null) {
    const options = first as { path?: unknown; host?: unknown; port?: unknown }
    if (options.path !== undefined) return undefined
    return { host: typeof options.host === 'string' ? options.host : 'localhost', port: options.port }
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined
  return { host: typeof second === 'string' ? second : 'localhost', port: first }
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIPv4(bare)) return bare.startsWith('127.') || bare === '0.0.0.0'
  if (isIPv6(bare)) return bare === '::1' || bare === '::' || bare.startsWith('::ffff:127.')
  return false
}
