import { startBareServer, startOctokitServer } from './baselines.ts'

/** Child process for a baseline server, so every server under test has a process (and a core) of its own. */
const [kind, secret = ''] = process.argv.slice(2)
const server = kind === 'octokit' ? await startOctokitServer(secret) : await startBareServer(secret)
console.log(JSON.stringify({ msg: 'listening', url: server.url }))
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
