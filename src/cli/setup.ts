#!/usr/bin/env node
import './require-supported-node.ts'

// prherald-setup. Its body loads only after the Node line guard (which may run the command again on another Node).
await import('./run-setup.ts')
