import { defineConfig } from 'vitest/config'
import { FastFirstSequencer } from './test/fast-first-sequencer.ts'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Every file runs; pure ones report first, end-to-end ones (real processes) last (test/fast-first-sequencer.ts).
    sequence: { sequencer: FastFirstSequencer },
    // One real PostgreSQL server per run (~1 s to initdb and start); test files take a database each.
    globalSetup: ['./test/helpers/postgres.ts'],
    // No test reaches beyond 127.0.0.1, nor runs a dist/ older than its source (test/loopback-only-setup.ts).
    setupFiles: ['./test/loopback-only-setup.ts'],
    // Most of a file's time is waiting (servers, sockets, timers), not CPU: vitest's default of cores - 1 ran
    // one file at a time on a 2-core machine with a load under 1 (a full run 520 s). Three at once keeps both
    // cores busy; docs/performance.md has the figures.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled errors fail the run (vitest's default); keep it so a leaked rejection is never green.
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
