import { defineConfig } from 'vitest/config'

/**
 * Two projects: unit tests beside the code (src/**), and end-to-end tests (test/**) that spawn
 * real ibex processes. Each e2e file starts its own node on its own port and datadir, so files
 * may run in parallel; E2E_MAX_WORKERS keeps the number of nodes alive at once below what the
 * 2-core CI box can run without distorting timings (startup.test.ts measures start time).
 */
const E2E_TIMEOUT_MS = 60_000
const E2E_MAX_WORKERS = 2

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'workers/**/*.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          testTimeout: E2E_TIMEOUT_MS,
          hookTimeout: E2E_TIMEOUT_MS,
          pool: 'forks',
          maxWorkers: E2E_MAX_WORKERS,
        },
      },
    ],
  },
})
