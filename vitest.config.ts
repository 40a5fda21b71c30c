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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled errors fail the run (vitest's default); keep it so a leaked rejection is never green.
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
