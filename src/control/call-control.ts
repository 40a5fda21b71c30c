import { request } from 'node:http'
import { PrheraldError } from '../errors.ts'
import type { ControlResponse } from './control-response.ts'

/** Nobody listens: no socket file (no server ran, or it stopped cleanly) or a dead server's file. */
const NO_SERVER = new Set(['ENOENT', 'ECONNREFUSED'])

/**
 * Hands `command` to the running server over its control socket and returns its answer, or undefined when
 * no server listens there (the caller then works on the database itself, holding the server lock). A
 * failure of the command inside the server comes back as a PrheraldError with the server's message and fix.
 */
export function callControl(socketPath: string | undefined, command: string, body: unknown): Promise<ControlResponse | undefined> {
  if (socketPath === undefined) return Promise.resolve(undefined)
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request({
      // A connection of its own: a kept-alive one from an earlier call may belong to a server that has stopped.
      socketPath, path: `/${command}`, method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        let answer: ControlResponse
        try {
          answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ControlResponse
        } catch {
          return reject(new PrheraldError('control', `the server's control socket ${socketPath} answered something that is not a control response`, {
            fix: 'make sure the socket belongs to a prherald-server of the same version',
          }))
        }
        if (answer.error) return reject(new PrheraldError('control', answer.error.message, { fix: answer.error.fix }))
        resolve({ lines: answer.lines ?? [], exitCode: answer.exitCode ?? 0 })
      })
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code && NO_SERVER.has(error.code)) return resolve(undefined)
      reject(new PrheraldError('control', `cannot reach the server's control socket ${socketPath}: ${error.message}`, {
        cause: error, fix: 'the server stopped while the command ran, or the socket is not accessible to this user: run the command as the server\'s user',
      }))
    })
    req.end(payload)
  })
}

/**
 * The command's side of the control channel: hands the work to the server listening on `socketPath`, prints
 * its lines and takes its exit status; false when no server listens, and the command then does the work itself.
 */
export async function handToServer(socketPath: string | undefined, command: string, body: unknown, print: (line: string) => void): Promise<boolean> {
  const answer = await callControl(socketPath, command, body)
  if (!answer) return false
  for (const line of answer.lines) print(line)
  process.exitCode = answer.exitCode
  return true
}
