import type { Reporter, TestModule } from 'vitest/node'

/**
 * Ends the run with one plain line, `Tests: N passed, N failed`, that CI and people can read without
 * parsing vitest's coloured summary. Unhandled errors count as failures, as they fail the run; so does a
 * file or suite whose setup failed (a `beforeAll` that threw leaves its tests skipped, not failed).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0
    let failed = unhandledErrors.length
    let skipped = 0
    let setups = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      setups += module.errors().length
      for (const suite of module.children.allSuites()) setups += suite.errors().length
    }
    const setupNote = setups > 0 ? ` (${setups} in a file's or suite's setup)` : ''
    process.stdout.write(`\nTests: ${passed} passed, ${failed + setups} failed${setupNote}${skipped > 0 ? `, ${skipped} skipped` : ''}\n`)
  }
}
