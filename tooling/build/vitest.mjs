// Shared vitest presets: `unit` (next to the code, no I/O) and `e2e` (test/e2e, real processes).
const shared = {
  exclude: ["**/node_modules/**", "**/dist/**", "**/*.live.test.ts"],
  // CPU-bound unit tests (5,000 random roster mutations) took 52 s in a clean-clone run at load 28 on
  // 2 cores, against about 8 s on a quiet machine: the budget is for a busy machine, not a quiet one.
  testTimeout: 120_000,
  hookTimeout: 60_000,
};

// Real child processes, PGlite start-up and browsers are slow on a busy 2-core machine: CI runs beside
// other jobs, and a spawn-heavy test that takes 10 s on a quiet machine has taken over 30 s there. The
// budgets are several times the quiet durations; tests assert counters and events, never elapsed time.
const e2eBudgets = {
  testTimeout: 180_000,
  hookTimeout: 180_000,
  teardownTimeout: 60_000,
  // expect.poll waits for an event or a counter; 1 s (vitest's default) is too short under load.
  expect: { poll: { timeout: 30_000, interval: 50 } },
};

export function unitConfig(overrides = {}) {
  return {
    test: {
      ...shared,
      include: ["src/**/*.test.ts", "test/*.test.ts"],
      typecheck: { enabled: true, include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"] },
      ...overrides,
    },
  };
}

export function e2eConfig(overrides = {}) {
  return {
    test: {
      ...shared,
      ...e2eBudgets,
      include: ["test/e2e/**/*.e2e.test.ts"],
      // Child processes each need a core; more forks than cores only adds timeouts.
      maxWorkers: 2,
      ...overrides,
    },
  };
}
