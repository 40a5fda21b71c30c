import { chmodSync, lstatSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { ControlHandler, ControlResponse } from './control-response.ts'
import { readNodeBody } from '../http/read-raw-body.ts'

/** Requests are a few options; anything larger is not a control command. */
const BODY_LIMIT = 64 * 1024
/** sun_path holds 108 bytes on Linux, 104 on macOS, the terminating NUL included. */
const SOCKET_PATH_LIMIT = 103

export interface ControlServerDeps {
  path: string
  /** Command name (the request's `POST /<name>`) to what runs it inside the server. */
  handlers: ReadonlyMap<string, ControlHandler>
  logger: Logger
}

export interface ControlServer {
  path: string
  /** Stops accepting, waits for commands in progress until `deadline` (unix ms), then removes the socket. */
  stop(deadline: number): Promise<void>
}

const send = (res: ServerResponse, status: number, body: ControlResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readNodeBody(req, BODY_LIMIT)).toString('utf8')
  try {
    return text === '' ? {} : JSON.parse(text) as unknown
  } catch {
    throw new Error('request body is not JSON')
  }
}

/**
 * The local control channel: commands that change messages (prherald-digest, prherald-reconcile) hand their
 * work to the running server here instead of racing it. It listens on a Unix socket, never on the public
 * port, readable and writable by the server's user only (0600). The server holds the database's server lock
 * before this starts, so a socket file already there is a dead server's, and is removed. Starting never
 * fails the service: without a control channel the CLIs find the server lock held and say so.
 */
export async function startControlServer(deps: ControlServerDeps): Promise<ControlServer | undefined> {
  const { path, handlers, logger } = deps
  if (Buffer.byteLength(path) > SOCKET_PATH_LIMIT) {
    logger.warn('control channel not started: its socket path is too long for a Unix socket', {
      path, fix: `keep the database path under ${SOCKET_PATH_LIMIT - '-control.sock'.length} bytes so that prherald-digest and prherald-reconcile can reach the server`,
    })
    return undefined
  }
  const server = createServer((req, res) => {
    const command = (req.url ?? '/').slice(1)
    const handler = req.method === 'POST' ? handlers.get(command) : undefined
    if (!handler) {
      req.resume()
      return send(res, 404, { lines: [], exitCode: 2, error: { message: `the server has no control command "${command}"`, fix: 'run the prherald-server of the same version as this command' } })
    }
    readJson(req)
      .then((body) => handler(body))
      .then((answer) => send(res, 200, answer), (error: unknown) => {
        logger.error('control command failed', { command, ...errorFields(error) })
        send(res, 500, {
          lines: [], exitCode: 1,
          error: { message: error instanceof Error ? error.message : String(error), fix: isPrheraldError(error) ? error.fix : 'see the server log' },
        })
      })
  })
  try {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSocket()) rmSync(path)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      // Created 0600 from the start (bind makes the file synchronously, inside listen): a chmod afterwards
      // would leave a moment in which anyone allowed by the umask could connect and send commands.
      const umask = process.umask(0o177)
      try {
        server.listen(path, () => {
          server.off('error', reject)
          resolve()
        })
      } finally {
        process.umask(umask)
      }
    })
    // Connecting needs write permission on the socket: only the server's user (and root) may send commands.
    // Kept after the umask above for a file system that ignores it.
    chmodSync(path, 0o600)
  } catch (error) {
    server.close()
    logger.warn('control channel not started', {
      path, ...errorFields(error), fix: 'check that the database directory is writable and nothing else has this path',
    })
    return undefined
  }
  logger.debug('control channel listening', { path, commands: [...handlers.keys()] })
  return {
    path,
    async stop(deadline) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()))
      await closed
      clearTimeout(timer)
      rmSync(path, { force: true })
    },
  }
}
