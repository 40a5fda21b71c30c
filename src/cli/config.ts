#!/usr/bin/env node
import './require-supported-node.ts'

// prherald-config. Its body loads only after the Node line guard (which may run the command again on another Node).
await import('./run-config.ts')
