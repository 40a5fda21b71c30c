#!/usr/bin/env node
import './require-supported-node.ts'
import { capMallocArenas } from '../memory/malloc-arenas.ts'

// prherald-server. The arena limit re-executes the process before anything else is loaded (nothing is open
// yet, and nothing is loaded twice: the server's modules are imported only afterwards).
capMallocArenas()
await import('./run-server.ts')
