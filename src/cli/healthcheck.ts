#!/usr/bin/env node
import './require-supported-node.ts'
import { healthUrl } from './health-url.ts'
import { commandSettings } from './load-env-file.ts'

/**
 * The container image's HEALTHCHECK (not a bin): GET /healthz on the address the server listens on, found
 * the way the server finds it (PRHERALD_LISTEN, else server.listen in the config, else :8080), so moving
 * the port cannot leave the image checking the old one. Exit 0 healthy, 1 not, as Docker expects; silent,
 * since Docker keeps the output of every probe.
 */
async function healthy(): Promise<boolean> {
  try {
    const response = await fetch(healthUrl(commandSettings().listen), { signal: AbortSignal.timeout(4_000) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

process.exitCode = (await healthy()) ? 0 : 1
