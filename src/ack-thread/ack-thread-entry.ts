import { parentPort, workerData } from 'node:worker_threads'
import { runAckThread } from './run-ack-thread.ts'
import type { AckThreadData } from './thread-messages.ts'

// The acknowledging thread's module: started by start-ack-thread.ts as a worker, never imported.
if (parentPort) await runAckThread(parentPort, workerData as AckThreadData)
