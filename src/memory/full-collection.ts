import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

let collect: Collect | undefined

/**
 * One full, memory-reducing garbage collection (V8's "last resort": it compacts the old generation and shrinks
 * the young one back). It blocks for tens of milliseconds, so it runs only at start and while idle
 * (`idle-release.ts`). V8 hands its collector only to contexts created while `--expose-gc` is set, so the flag
 * is set for one throwaway context and cleared again: the operator adds no node flag and no global `gc` appears.
 */
export function fullCollection(): void {
  collect ??= exposeCollector()
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

function exposeCollector(): Collect {
  setFlagsFromString('--expose-gc')
  try {
    return runInNewContext('gc') as Collect
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
