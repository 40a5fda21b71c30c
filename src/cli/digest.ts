#!/usr/bin/env node
import './require-supported-node.ts'

// prherald-digest. Its body loads only after the Node line guard (which may run the command again on another Node).
await import('./run-digest.ts')
