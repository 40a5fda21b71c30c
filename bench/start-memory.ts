import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { packageRoot } from '../src/package-root.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { rssMiB, spawnListening } from './processes.ts'

/**
 * Resident memory of prherald-server right after it is ready, with the repository's example config.yaml
 * (GitHub, no GITHUB_TOKEN), against a bare Node process started the same way: the median of `starts`
 * starts, each read one second after `listening` so that start-up garbage has had a collection.
 * `node dist/bench/start-memory.js` prints it; `npm run bench` uses it for its verdict.
 */
export async function measureStartMemory(starts = 3, withAckThread = false): Promise<{ prherald: number; bare: number; ackThread: number | undefined }> {
  const dir = makeTempDir('prherald-start-memory-')
  const slack = await startFakeSlack({ anyChannel: true })
  // The example as it is, but logging JSON: the bench reads the `listening` line.
  const config = join(dir.path, 'config.yaml')
  const example = readFileSync(join(packageRoot(), 'config.yaml'), 'utf8').replace(/^(\s*log_format:) pretty/m, '$1 json')
  writeFileSync(config, example)
  // The same with server.ack_thread on (BENCH_ACK_THREAD=1 or `withAckThread`), started in turn with the others.
  const threadConfig = join(dir.path, 'config-ack-thread.yaml')
  writeFileSync(threadConfig, example.replace(/^server:\n/m, 'server:\n  ack_thread: true\n'))
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1000))
  const prherald: number[] = []
  const threaded: number[] = []
  const bare: number[] = []
  const startOnce = async (file: string, database: string) => {
    const server = await spawnListening('dist/src/cli/server.js', [], {
      ...process.env, PRHERALD_CONFIG_FILE: file, PRHERALD_DATABASE_URL: `file:${join(dir.path, database)}`,
      PRHERALD_LISTEN: '127.0.0.1:0', SLACK_BOT_TOKEN: 'xoxb-start-memory', SLACK_API_URL: slack.url, GITHUB_WEBHOOK_SECRET: 'start-memory',
      // Blank: a token in the operator's shell would send start-up validation to the real GitHub.
      GITHUB_TOKEN: '', BITBUCKET_TOKEN: '',
    })
    await settle()
    const rss = rssMiB(server.child.pid)
    await server.stop()
    return rss
  }
  try {
    for (let i = 0; i < starts; i++) {
      prherald.push(await startOnce(config, `start-${i}.db`))
      if (withAckThread) threaded.push(await startOnce(threadConfig, `start-thread-${i}.db`))
      const idle = await spawnListening('dist/bench/serve-baseline.js', ['bare', 'start-memory'], process.env)
      await settle()
      bare.push(rssMiB(idle.child.pid))
      await idle.stop()
    }
  } finally {
    await slack.close()
    dir.remove()
  }
  return { prherald: median(prherald), bare: median(bare), ackThread: withAckThread ? median(threaded) : undefined }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { prherald, bare, ackThread } = await measureStartMemory(Number(process.env.BENCH_STARTS ?? 3), process.env.BENCH_ACK_THREAD === '1')
  console.log(`resident memory right after start, example config.yaml: prherald ${prherald.toFixed(1)} MiB, `
    + `${ackThread === undefined ? '' : `with server.ack_thread ${ackThread.toFixed(1)} MiB, `}bare node:http ${bare.toFixed(1)} MiB (median of ${process.env.BENCH_STARTS ?? 3} starts)`)
}
