import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled errors fail the run (vitest's default); keep it so a leaked rejection is never green.
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
