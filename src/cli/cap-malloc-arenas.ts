import { capMallocArenas } from '../memory/malloc-arenas.ts'

// Imported by prherald-server right after the version check, so the re-exec happens before the rest of its
// modules run: nothing is open yet, and less is done twice.
capMallocArenas()
