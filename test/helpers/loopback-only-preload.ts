import { appendFileSync } from 'node:fs'
import { refuseNonLoopback } from './loopback-only.ts'

/**
 * Loaded with `node --import` into every Node process a test starts (test/loopback-only-setup.ts adds it to
 * NODE_OPTIONS): a connection beyond loopback is refused, written to stderr and to the file named by
 * PRHERALD_TEST_NETWORK_LOG, from which the test that started the process fails.
 */
const log = process.env.PRHERALD_TEST_NETWORK_LOG
refuseNonLoopback((target) => {
  const line = `pid ${process.pid} (${process.argv.slice(1).join(' ')}) tried to connect to ${target}\n`
  process.stderr.write(`[test network guard] ${line}`)
  if (log) appendFileSync(log, line)
})
